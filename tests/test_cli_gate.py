"""`graphmem candidates / confirm / reject` on a real data dir."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from graphmem import Memory
from graphmem.cli import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_candidates_confirm_reject_round_trip(tmp_path, embedder):
    d = tmp_path / "gm"
    with Memory(data_dir=d, embedder=embedder) as mem:
        mem.write("cli", [{"role": "user", "content": "I'm avoiding coffee this week."},
                          {"role": "user", "content": "I'm eating pizza tonight."}], "2024-04-01", "s1")
    listed = run("candidates", "--user", "cli", "--data-dir", str(d), "--json")
    assert listed.exit_code == 0, listed.output
    held = {c["object"]: c["uuid"] for c in json.loads(listed.output)}
    assert set(held) == {"coffee", "pizza"}
    text = run("candidates", "--user", "cli", "--data-dir", str(d)).output
    assert held["coffee"] in text and "score" in text

    confirmed = json.loads(run("confirm", held["coffee"], "--user", "cli", "--data-dir", str(d), "--json").output)
    assert confirmed["decision"] == "confirmed" and confirmed["fact_uuid"] == held["coffee"]
    assert run("reject", held["pizza"], "--user", "cli", "--data-dir", str(d)).output.startswith("rejected")
    facts = json.loads(run("facts", "--user", "cli", "--data-dir", str(d), "--json").output)
    assert [(f["predicate"], f["object"]) for f in facts] == [("AVOIDS", "coffee")]
    assert json.loads(run("candidates", "--user", "cli", "--data-dir", str(d), "--json").output) == []

    again = run("reject", held["pizza"], "--user", "cli", "--data-dir", str(d))
    assert again.exit_code == 2 and again.output.startswith("error: no candidate")
    assert run("candidates", "--user", "cli", "--data-dir", str(tmp_path / "none")).exit_code == 1
