"""`python -m bench [store|ingest|speed|extraction|retrieval|latency|nested_kv|forget|cli|service|gate ...]`: run the named benchmarks (default: all)."""

from __future__ import annotations

import argparse

from bench import cli, extraction, forget, gate, ingest, nested_kv, retrieval, service, speed, store

SUITES = {"store": store.run, "ingest": ingest.run, "speed": speed.run, "extraction": extraction.run, "retrieval": retrieval.run,
          "latency": retrieval.run_latency, "nested_kv": nested_kv.run, "forget": forget.run, "cli": cli.run,
          "service": service.run, "gate": gate.run}


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench", description=__doc__)
    # default=None: argparse would check a list default against `choices` and refuse it.
    parser.add_argument("suites", nargs="*", choices=list(SUITES), default=None,
                        help=f"any of {', '.join(SUITES)} (default: all but latency, which retrieval runs, in that order)")
    args = parser.parse_args()
    for name in args.suites or [n for n in SUITES if n != "latency"]:  # retrieval includes latency
        SUITES[name]()


if __name__ == "__main__":
    main()
