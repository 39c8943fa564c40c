"""`make demo`: a three-session timeline on the embedded default store.

March: lives in Beijing. June: moved to Shanghai. August: restates Shanghai.
Prints the current fact, the history with validity ranges and what superseded
what, and the answer as of April.
"""

from __future__ import annotations

from graphmem import Memory

USER = "demo"
SESSIONS = [
    ("2024-03-10T09:00:00+00:00", "Beijing", "I live in Beijing."),
    ("2024-06-15T09:00:00+00:00", "Shanghai", "I moved to Shanghai."),
    ("2024-08-02T09:00:00+00:00", "Shanghai", "My flat in Shanghai is great."),
]


def main() -> None:
    with Memory() as mem:
        print(f"graphmem demo - data dir {mem.settings.data_dir}, user {USER!r}")
        mem.drop_user(USER)
        for when, city, said in SESSIONS:
            result = mem.add_fact(USER, "me", "lives_in", city, fact=said, valid_at=when)
            print(f"  session {when[:10]}: {said!r:34} -> {result.action}")

        print("\nNow:")
        for fact in mem.facts(USER):
            print(f"  {fact.object:9} {fact.status:10} valid {fact.range_text()}")

        print("\nHistory of 'me':")
        for fact in mem.history(USER, "me").versions:
            line = f"  {fact.object:9} {fact.status:10} valid {fact.range_text()}"
            if fact.superseded_by_fact:
                line += f"  superseded by: {fact.superseded_by_fact!r}"
            print(line)

        print("\nAs of 2024-04-15:")
        for fact in mem.facts(USER, valid_at="2024-04-15"):
            print(f"  {fact.object:9} {fact.status:10} valid {fact.range_text()}")


if __name__ == "__main__":
    main()
