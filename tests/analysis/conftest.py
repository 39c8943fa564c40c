"""A memory where the user moved from Beijing to Shanghai, written through the real
pipeline (rule extraction, MiniLM, embedded FalkorDB); `known_before_move` is a
transaction time between the two writes."""

from __future__ import annotations

import pytest

from graphmem.schema import time as t


@pytest.fixture
def moved(memory):
    memory.write("u", [{"role": "user", "content": "I live in Beijing. My sister Anna works at Google."}],
                 "2024-03-10T09:00:00Z", "march")
    memory.known_before_move = t.now_utc()
    memory.write("u", [{"role": "user", "content": "I moved to Shanghai last month."}], "2024-07-10T09:00:00Z", "july")
    return memory
