"""`python -m bench [store ...]`: run the named benchmarks (default: all)."""

from __future__ import annotations

import argparse

from bench import ingest, store

SUITES = {"store": store.run, "ingest": ingest.run}


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench", description=__doc__)
    parser.add_argument("suites", nargs="*", choices=[*SUITES, []] and list(SUITES), default=list(SUITES))
    args = parser.parse_args()
    for name in args.suites:
        SUITES[name]()


if __name__ == "__main__":
    main()
