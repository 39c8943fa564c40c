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


# -- issue 8: the CLI as people use it ------------------------------------------------

import pytest  # noqa: E402

from graphmem.cli import when_text  # noqa: E402
from graphmem.cli_time import parse_between, parse_time  # noqa: E402
from graphmem.schema.errors import InvalidInput  # noqa: E402
from graphmem.ingest.turns import short_time  # noqa: E402


def write_jsonl(path: Path, sessions: list[dict]) -> Path:
    path.write_text("".join(json.dumps(s) + "\n" for s in sessions))
    return path


def session(sid: str, when: str, *contents: str) -> dict:
    return {"session_id": sid, "session_time": when,
            "turns": [{"speaker": "user", "content": c} for c in contents]}


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory, embedder):
    """sample.jsonl ingested once; the read-only tests share it."""
    d = str(tmp_path_factory.mktemp("cli") / "gm")
    result = run("ingest", str(DATA / "sample.jsonl"), "--user", "cli", "--data-dir", d)
    assert result.exit_code == 0, result.output
    return d


def test_multi_conversation_ingest_prints_its_user_ids_and_users_lists_them(tmp_path, embedder):
    records = json.loads((DATA / "locomo_dev7.json").read_text())[:2]
    for r in records:
        conv = r["conversation"]
        for key in [k for k in conv if k.startswith("session_") and k not in ("session_1", "session_1_date_time")]:
            del conv[key]
        conv["session_1"] = conv["session_1"][:2]
        r["qa"] = []
    small = tmp_path / "two.json"
    small.write_text(json.dumps(records))
    d = str(tmp_path / "gm")
    expected = sorted(f"u_{r['sample_id']}" for r in records)

    result = run("ingest", str(small), "--user", "u", "--data-dir", d)
    assert result.exit_code == 0, result.output
    assert all(uid in result.output for uid in expected)
    # folded into a snapshot: the next open loads it instead of replaying every write query
    assert sum(p.stat().st_size for p in (tmp_path / "gm" / "appendonlydir").glob("*.incr.aof")) == 0

    listed = run("users", "--data-dir", d, "--json")
    assert listed.exit_code == 0 and json.loads(listed.output) == expected
    assert run("users", "--data-dir", d).output.split() == expected


def test_ingest_help_and_readme_document_jsonl_and_per_conversation_users():
    help_text = run("ingest", "--help").output
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    for text in (help_text, readme):
        assert "JSONL" in text and '"session_time"' in text and '"turns"' in text
        assert "<user>_<conversation id>" in text


def test_a_bad_session_in_the_middle_of_a_jsonl_file_writes_nothing(tmp_path):
    bad = write_jsonl(tmp_path / "bad.jsonl", [
        session("s1", "2024-03-01T09:30:00", "I live in Beijing."),
        session("s2", "2024-03-02T09:30:00", "   "),
        session("s3", "2024-03-03T09:30:00", "I work at Acme."),
    ])
    d = tmp_path / "gm"
    result = run("ingest", str(bad), "--user", "u", "--data-dir", str(d))
    assert result.exit_code == 2
    assert "bad.jsonl" in result.output and "line 2" in result.output and "'s2'" in result.output
    assert "content" in result.output and "nothing was written" in result.output
    assert not d.exists()


@pytest.mark.parametrize("text, expected", [
    ("2023/05/20 (Sat) 02:21", "2023-05-20T02:21:00+00:00"),
    ("2023-05-20T04:21:00+02:00", "2023-05-20T02:21:00+00:00"),
    ("2023-05-20", "2023-05-20T00:00:00+00:00"),
    ("1:56 pm on 8 May, 2023", "2023-05-08T13:56:00+00:00"),
])
def test_one_parser_reads_every_dataset_date_format(text, expected):
    assert parse_time(text).isoformat() == expected


def test_time_options_accept_longmemeval_dates(sample_store):
    later = run("facts", "--user", "cli", "--data-dir", sample_store, "--json",
                "--valid-at", "2024/12/01 (Sun) 10:00", "--known-at", "2099/01/01 (Thu) 00:00")
    assert later.exit_code == 0, later.output
    assert {f["object"] for f in json.loads(later.output)} >= {"Beijing", "Ana"}
    before = run("facts", "--user", "cli", "--data-dir", sample_store, "--json", "--valid-at", "2024/04/01 (Mon) 10:00")
    assert "Ana" not in {f["object"] for f in json.loads(before.output)}  # said on 2024-06-15
    packet = run("search", "Where do I live?", "--user", "cli", "--data-dir", sample_store,
                 "--now", "2024/12/01 (Sun) 10:00", "--json")
    assert packet.exit_code == 0, packet.output
    bad = run("facts", "--user", "cli", "--data-dir", sample_store, "--valid-at", "next blursday")
    assert bad.exit_code == 2 and "--valid-at" in bad.output and "LongMemEval" in bad.output


def test_search_json_carries_the_rendered_prompt(sample_store):
    out = json.loads(run("search", "Where do I live?", "--user", "cli", "--data-dir", sample_store, "--json").output)
    assert out["prompt"].startswith("MEMORY") or "Beijing" in out["prompt"] or "Shanghai" in out["prompt"]
    text = run("search", "Where do I live?", "--user", "cli", "--data-dir", sample_store).output
    assert out["prompt"].strip() == text.strip()


def test_facts_show_the_time_of_day_when_it_is_not_midnight(sample_store):
    assert when_text(parse_time("2024-01-02T15:04:00")) == "2024-01-02 15:04"
    assert when_text(parse_time("2024-01-02")) == "2024-01-02"
    table = run("facts", "--user", "cli", "--data-dir", sample_store, "--valid-at", "2024-04-01").output
    assert "2024-03-01 09:30 ->" in table  # sample.jsonl's first session is at 09:30


@pytest.mark.parametrize("command", [
    ["users"], ["facts", "--user", "u"], ["history", "Beijing", "--user", "u"],
    ["search", "where?", "--user", "u"], ["forget", "--user", "u", "--text", "x", "--dry-run"],
])
def test_reads_on_a_missing_data_dir_create_nothing_and_exit_1(tmp_path, command):
    d = tmp_path / "typo"
    result = run(*command, "--data-dir", str(d))
    assert result.exit_code == 1 and "no graphmem data" in result.output
    assert not d.exists()


def test_between_is_one_value_so_dry_run_stays_a_flag(sample_store):
    facts = run("facts", "--user", "cli", "--data-dir", sample_store, "--json").output
    one = run("forget", "--user", "cli", "--between", "2024-05-01", "--dry-run", "--data-dir", sample_store)
    assert one.exit_code == 2 and "'..'" in one.output
    preview = run("forget", "--user", "cli", "--between", "2024-06-01..2024-07-01", "--dry-run",
                  "--data-dir", sample_store, "--json")
    assert preview.exit_code == 0, preview.output
    report = json.loads(preview.output)
    assert report["dry_run"] and report["turn_ids"] == ["s2:0", "s2:1"]
    assert run("facts", "--user", "cli", "--data-dir", sample_store, "--json").output == facts
    with pytest.raises(InvalidInput):
        parse_between("2024-06-01..2024-05-01")


def test_text_forget_matches_whole_words_and_asks_before_deleting_many(tmp_path, embedder):
    many = [f"I met a friend at Acme on day {i}." for i in range(6)]
    d = str(tmp_path / "gm")
    f = write_jsonl(tmp_path / "t.jsonl", [
        session("s1", "2024-03-01T09:30:00", "Paris was lovely.", "Bananas are yellow."),
        session("s2", "2024-03-02T09:30:00", *many),
    ])
    assert run("ingest", str(f), "--user", "u", "--data-dir", d).exit_code == 0
    preview = json.loads(run("forget", "--user", "u", "--text", "A", "--dry-run", "--json", "--data-dir", d).output)
    assert preview["turn_ids"] == [f"s2:{i}" for i in range(6)]  # not "Paris", not "Bananas"

    refused = run("forget", "--user", "u", "--text", "acme", "--data-dir", d)
    assert refused.exit_code == 2 and "6 turns" in refused.output and "--yes" in refused.output
    assert len(json.loads(run("forget", "--user", "u", "--text", "acme", "--dry-run", "--json",
                              "--data-dir", d).output)["turn_ids"]) == 6
    done = json.loads(run("forget", "--user", "u", "--text", "acme", "--yes", "--json", "--data-dir", d).output)
    assert done["episodes_deleted"] == 6 and not done["dry_run"]


def test_turn_ids_without_a_session_id_are_short_and_stable(tmp_path, embedder):
    from graphmem import Memory

    assert short_time(parse_time("2024-07-10T00:00:30")) == "2024-07-10T00:00:30Z"
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem:
        mem.write("u", [{"role": "user", "content": "I adopted a cat named Tom."}], "2024-07-10")
        report = mem.forget("u", {"text": "Tom"}, dry_run=True)
    assert report.turn_ids == ("2024-07-10T00:00Z#0",)


def _commands_in_one_child(store: str, commands: list[list[str]], modules: tuple[str, ...]):
    """Run CLI `commands` in one fresh process on `store`; its output, ending with
    which of `modules` that process imported."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from graphmem.cli import app\n"
        f"for argv in {commands!r}:\n"
        "    try:\n"
        "        app(argv + ['--data-dir', sys.argv[1]])\n"
        "    except SystemExit as exc:\n"
        "        assert not exc.code, exc.code\n"
        f"print(sorted(m for m in {modules!r} if m in sys.modules))\n"
    )
    return subprocess.run([sys.executable, "-c", script, store], capture_output=True, text=True, timeout=300)


def test_facts_and_search_leave_torch_and_the_rule_extractor_unimported(sample_store):
    commands = [["facts", "--user", "cli"], ["search", "Where do I live?", "--user", "cli"]]
    done = _commands_in_one_child(sample_store, commands, ("torch", "sentence_transformers", "graphmem.ingest.rules"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert "Beijing" in done.stdout and lines[-1] == "[]"


def test_facts_and_users_leave_networkx_and_scipy_unimported(sample_store):
    """Search (bm25 -> scipy) and the networkx analyses load where they are used:
    they were ~0.5 s of every command's start (`python -m bench cli`)."""
    done = _commands_in_one_child(sample_store, [["facts", "--user", "cli"], ["users"]], ("networkx", "scipy"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert "Beijing" in done.stdout and lines[-1] == "[]"


def test_search_and_facts_take_scopes(tmp_path, embedder):
    from graphmem import Memory

    d = tmp_path / "gm"
    with Memory(data_dir=d, embedder=embedder) as mem:
        mem.add_fact("cli", "cli", "lives_in", "Beijing", valid_at="2024-03-01")
        mem.add_fact("cli", "cli", "lives_in", "Oslo", valid_at="2024-03-01", scope="project:apollo")
    mine = run("search", "Where does cli live?", "--user", "cli", "--data-dir", str(d)).output
    assert "Beijing" in mine and "Oslo" not in mine
    both = run("search", "Where does cli live?", "--user", "cli", "--data-dir", str(d),
               "--scope", "user", "--scope", "project:apollo").output
    assert "Beijing" in both and "| scope project:apollo |" in both
    facts = json.loads(run("facts", "--user", "cli", "--data-dir", str(d), "--scope", "project:apollo", "--json").output)
    assert [f["object"] for f in facts] == ["Oslo"]
    bad = run("search", "x", "--user", "cli", "--data-dir", str(d), "--scope", "team:x")
    assert bad.exit_code == 2 and bad.output.startswith("error: scope")
