"""`graphmem rebuild --user U` re-derives the facts from the stored turns and says what it did."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from graphmem import Memory
from graphmem.cli import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_rebuild_prints_what_was_rederived_and_keeps_the_facts(tmp_path, embedder):
    d = tmp_path / "gm"
    with Memory(data_dir=d, embedder=embedder) as mem:
        mem.write("rb", [{"role": "user", "content": "I live in Beijing."}], "2024-03-01", "s1")
        mem.write("rb", [{"role": "user", "content": "I moved to Shanghai last month."}], "2024-07-10", "s2")
        before = sorted((f.predicate, f.object, f.status) for f in mem.inspect().fact_versions("rb"))
        turns = [(e.uuid, e.content) for e in mem.inspect().episodes("rb")]
    done = run("rebuild", "--user", "rb", "--data-dir", str(d))
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[0] == "rebuilt rb: 2 turns in 2 sessions re-extracted"
    assert lines[1].startswith(f"facts: {len(before)} dropped, ")
    assert lines[2] == "llm: 0 calls, 0 answered from the cache"
    as_json = json.loads(run("rebuild", "--user", "rb", "--data-dir", str(d), "--json").output)
    assert (as_json["episodes"], as_json["sessions"], as_json["facts_dropped"]) == (2, 2, len(before))
    with Memory(data_dir=d, embedder=embedder) as mem:
        assert sorted((f.predicate, f.object, f.status) for f in mem.inspect().fact_versions("rb")) == before
        assert [(e.uuid, e.content) for e in mem.inspect().episodes("rb")] == turns


def test_rebuild_of_an_unknown_user_or_a_missing_dir_fails_cleanly(tmp_path, embedder):
    d = tmp_path / "gm"
    with Memory(data_dir=d, embedder=embedder) as mem:
        mem.add_fact("someone", "someone", "likes", "tea")
    unknown = run("rebuild", "--user", "nobody", "--data-dir", str(d))
    assert unknown.exit_code == 2 and "has no memory" in unknown.output
    bad = run("rebuild", "--user", "not an id", "--data-dir", str(d))
    assert bad.exit_code == 2
    missing = run("rebuild", "--user", "rb", "--data-dir", str(tmp_path / "typo"))
    assert missing.exit_code == 1 and not (tmp_path / "typo").exists()
