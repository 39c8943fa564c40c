"""`make demo`: a three-session timeline written as real sentences through `write()`.

March: "I live in Beijing." July: "I moved to Shanghai last month."
September: "I still live in Shanghai." Prints the current home, the history
with validity ranges and what superseded what, and the answer as of April.
"""

from __future__ import annotations

from graphmem import Memory

USER = "demo"
SESSIONS = [
    ("2024-03-10T09:00:00+00:00", "march", "I live in Beijing."),
    ("2024-07-10T09:00:00+00:00", "july", "I moved to Shanghai last month."),
    ("2024-09-02T09:00:00+00:00", "september", "I still live in Shanghai."),
]


def show(label: str, facts) -> None:
    print(f"\n{label}")
    for fact in facts:
        line = f"  {fact.object:9} {fact.status:10} valid {fact.range_text():26} from turn {', '.join(fact.source_turn_ids)}"
        if fact.superseded_by_fact:
            line += f"\n  {'':9} superseded by: {fact.superseded_by_fact!r}"
        print(line)


def main() -> None:
    with Memory() as mem:
        print(f"graphmem demo - data dir {mem.settings.data_dir}, user {USER!r}")
        mem.drop_user(USER)
        for when, session_id, text in SESSIONS:
            result = mem.write(USER, [{"role": "user", "content": text}], when, session_id=session_id)
            print(f"  {when[:10]} {text!r:36} added {result.facts_added}, merged {result.facts_merged}, "
                  f"superseded {result.facts_superseded}")
        homes = lambda facts: [f for f in facts if f.predicate == "LIVES_IN"]  # noqa: E731
        show("Where do I live now?", homes(mem.facts(USER)))
        show("History of where I lived:", homes(mem.history(USER, "user").versions))
        show("Where did I live on 2024-04-15?", homes(mem.facts(USER, valid_at="2024-04-15")))


if __name__ == "__main__":
    main()
