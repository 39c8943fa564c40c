"""The CLI mirrors the API: each command calls the Memory method of the same name."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from graphmem.cli import app

DATA = Path(__file__).parent / "data"
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_ingest_facts_search_forget_round_trip(tmp_path, embedder):
    d = str(tmp_path / "gm")
    result = run("ingest", str(DATA / "sample.jsonl"), "--user", "cli", "--data-dir", d, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["sessions"] == 3 and summary["episodes"] == 5 and summary["facts_added"] >= 1

    facts = json.loads(run("facts", "--user", "cli", "--data-dir", d, "--json").output)
    assert any(f["object"] == "Beijing" and f["predicate"] == "LIVES_IN" for f in facts)

    packet = json.loads(run("search", "Where do I live?", "--user", "cli", "--data-dir", d, "--json").output)
    assert not packet["abstain"] and packet["cited_turn_ids"]

    facts = json.loads(run("facts", "--user", "cli", "--data-dir", d, "--json").output)  # after search's access count
    preview = run("forget", "--user", "cli", "--text", "Beijing", "--dry-run", "--data-dir", d)
    assert preview.exit_code == 0 and preview.output.startswith("would remove:")
    assert json.loads(run("facts", "--user", "cli", "--data-dir", d, "--json").output) == facts

    done = json.loads(run("forget", "--user", "cli", "--text", "Beijing", "--data-dir", d, "--json").output)
    assert done["facts_deleted"] >= 1 and done["compacted"]
    left = json.loads(run("facts", "--user", "cli", "--data-dir", d, "--json").output)
    assert all("Beijing" not in f["fact"] for f in left)


def test_errors_are_one_line_and_exit_2(tmp_path, embedder):
    d = str(tmp_path / "gm")
    bad_user = run("facts", "--user", "not a user!", "--data-dir", d)
    assert bad_user.exit_code == 2 and bad_user.output.startswith("error: user id")
    assert run("forget", "--user", "u", "--all", "--data-dir", d).exit_code == 2
    assert run("forget", "--user", "u", "--data-dir", d).exit_code == 2
    missing = run("ingest", str(tmp_path / "nope.json"), "--user", "u", "--data-dir", d)
    assert missing.exit_code == 2 and "error:" in missing.output


def test_every_command_is_documented_in_the_readme():
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    commands = [c.name or c.callback.__name__ for c in app.registered_commands]
    assert commands and all(f"graphmem {name}" in readme for name in commands)
    assert "graphmem eval forget" in readme
