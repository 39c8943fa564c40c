"""`python -m bench [store|ingest|retrieval|nested_kv|forget|cli ...]`: run the named benchmarks (default: all)."""

from __future__ import annotations

import argparse

from bench import cli, forget, ingest, nested_kv, retrieval, store

SUITES = {"store": store.run, "ingest": ingest.run, "retrieval": retrieval.run, "nested_kv": nested_kv.run, "forget": forget.run, "cli": cli.run}


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench", description=__doc__)
    # default=None: argparse would check a list default against `choices` and refuse it.
    parser.add_argument("suites", nargs="*", choices=list(SUITES), default=None,
                        help=f"any of {', '.join(SUITES)} (default: all, in that order)")
    args = parser.parse_args()
    for name in args.suites or list(SUITES):
        SUITES[name]()


if __name__ == "__main__":
    main()
