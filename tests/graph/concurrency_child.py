"""Child process for the concurrency test: one of two writers on one data dir.

argv: data_dir, parity (0 = even hours, 1 = odd hours), writes, reps, barrier dir.
Before each repetition both writers wait for each other (a file per writer), so
their writes to user ``bob<rep>`` interleave. Towns are real city names (from the
tz database), so no two of them resolve to one entity.
"""

import sys
import time
import zoneinfo
from datetime import datetime, timedelta, timezone
from pathlib import Path

from graphmem import Memory

START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def towns() -> list[str]:
    names = {zone.rsplit("/", 1)[1] for zone in zoneinfo.available_timezones() if "/" in zone}
    return sorted(n for n in names if n.isalpha() and n[0].isupper() and n[1:].islower())


def main() -> None:
    data_dir, parity, writes, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    barrier = Path(sys.argv[5])
    names = towns()
    with Memory(data_dir=data_dir) as mem:
        mem.embedder.embed(["warm up"])
        for rep in range(reps):
            (barrier / f"{rep}-{parity}").touch()
            while not (barrier / f"{rep}-{1 - parity}").exists():
                time.sleep(0.005)
            for i in range(writes):
                hour = 2 * i + parity
                turn = {"role": "user", "content": f"I live in {names[hour]}."}
                mem.write(f"bob{rep}", [turn], START + timedelta(hours=hour))
            print(f"DONE {rep}", flush=True)


if __name__ == "__main__":
    main()
