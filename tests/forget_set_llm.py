"""Run the forgetting set through the LLM path, so its cache column applies.

`graphmem eval forget` offline uses rule extraction, which writes no LLM cache.
This script starts the rules-backed scripted LLM (`tests/rules_llm.py`) on
loopback and runs the same CLI against it: every turn then goes through the
LLM prompts and the cache, and the cache check covers every forgotten string.
Run with `make forget-llm` (a script, not a test: the suite runs the same set through the
same scripted LLM in tests/evals/test_forgetting_set.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from llm_server import ScriptedLLM  # noqa: E402
from rules_llm import rules_handler  # noqa: E402


def main() -> int:
    graphmem = Path(sys.executable).with_name("graphmem")
    with ScriptedLLM(rules_handler) as server:
        done = subprocess.run(
            [str(graphmem), "eval", "forget", "--llm-base-url", server.url,
             "--llm-model", "scripted-model", *sys.argv[1:]],
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )
        print(f"scripted LLM requests: {len(server.requests)}")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
