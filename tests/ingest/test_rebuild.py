"""Rebuild from episodes (`Memory.rebuild`, `ingest.rebuild`): the turns are the
source of truth; facts, entities, mentions and summaries are re-derived."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import Memory, Settings
from graphmem.ingest.extraction import Extraction
from graphmem.ingest.loaders import load_locomo
from graphmem.ingest.rules import RuleExtractor
from graphmem.schema.errors import NotFound

from test_write_llm import handler  # the scripted LLM of the write tests

DATA = Path(__file__).parent.parent / "data"


def fact_view(mem: Memory, user: str) -> list[tuple]:
    """Every fact version, without uuids and transaction times (a rebuild makes new ones)."""
    return sorted(
        (r.subject, r.predicate, r.object, r.fact, r.valid_at, r.invalid_at, r.status, r.superseded_by_fact,
         r.source_turn_ids, r.scope, r.confidence, r.expires_at)
        for r in mem.inspect().fact_versions(user)
    )


def episode_view(mem: Memory, user: str) -> list[tuple]:
    return sorted((e.uuid, e.turn_id, e.content, e.session_id, e.turn_index) for e in mem.inspect().episodes(user))


def test_rebuilding_an_untouched_locomo_memory_gives_the_same_facts(tmp_path, embedder):
    conv = next(c for c in load_locomo(DATA / "locomo_dev7.json") if c.conversation_id == "conv-30")
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem:
        for session in conv.sessions:
            mem.write("lc", **session.write_args())
        facts, episodes = fact_view(mem, "lc"), episode_view(mem, "lc")
        current = sorted((f.subject, f.predicate, f.object, f.fact) for f in mem.facts("lc"))
        assert len(facts) > 10 and len(episodes) == 369
        result = mem.rebuild("lc")
        assert (result.episodes, result.sessions) == (369, 19) and result.facts_dropped > 0
        assert fact_view(mem, "lc") == facts
        assert sorted((f.subject, f.predicate, f.object, f.fact) for f in mem.facts("lc")) == current
        assert episode_view(mem, "lc") == episodes
        assert not mem.search("lc", "Where does Gina work?", now="2023-08-01").abstain


class NoPets(RuleExtractor):
    """A rules change: pets are no longer extracted."""

    def extract(self, turns):
        return [Extraction(entities=x.entities, facts=[f for f in x.facts if not f.predicate.startswith("HAS_PET")
                                                       and not f.predicate.startswith("PET")])
                for x in super().extract(turns)]


def test_after_a_rules_change_episodes_stay_and_facts_are_re_derived(tmp_path, embedder):
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem:
        mem.write("u", [{"role": "user", "content": "I adopted a cat named Luna."},
                        {"role": "user", "content": "I live in Beijing."}], "2024-03-01", session_id="s1")
        mem.add_fact("u", "u", "prefers", "tea")  # direct: not a projection of a turn
        episodes = episode_view(mem, "u")
        before = {f.predicate for f in mem.facts("u")}
        assert any("PET" in p for p in before) and {"LIVES_IN", "PREFERS"} <= before
        mem._extractor = NoPets()
        mem.rebuild("u")
        after = {f.predicate for f in mem.facts("u")}
        assert not any("PET" in p for p in after) and {"LIVES_IN", "PREFERS"} <= after
        assert episode_view(mem, "u") == episodes
        assert "Luna" not in mem.search("u", "What pets do I have?", now="2024-09-01").to_prompt().split("EVIDENCE")[0]
        assert [r.entity for r in mem.inspect().mentions("u")]  # mentions re-derived


def test_rebuild_after_a_forget_keeps_the_other_turns_and_their_uuids(tmp_path, embedder):
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem:
        mem.write("u", [{"role": "user", "content": "I live in Beijing."},
                        {"role": "user", "content": "My dog is called Rex."},
                        {"role": "user", "content": "I work at Acme."}], "2024-03-01", session_id="s1")
        mem.forget("u", {"text": "Rex"})
        episodes, facts = episode_view(mem, "u"), fact_view(mem, "u")
        assert [e[4] for e in episodes] == [0, 2]
        mem.rebuild("u")
        assert episode_view(mem, "u") == episodes and fact_view(mem, "u") == facts


def test_rebuild_of_an_unknown_user_is_not_found(memory):
    with pytest.raises(NotFound):
        memory.rebuild("nobody")


def test_rebuilding_an_llm_extracted_memory_costs_no_call(tmp_path, embedder, scripted_llm):
    scripted_llm.handler = handler
    settings = Settings(data_dir=tmp_path / "gm", llm_base_url=scripted_llm.url, llm_model="scripted-model")
    with Memory(settings=settings, embedder=embedder) as mem:
        mem.write("u", [{"role": "user", "content": "I live in Beijing."}], "2024-03-10T09:00:00Z", "s1")
        mem.write("u", [{"role": "user", "content": "I moved to Shanghai."}], "2024-07-10T09:00:00Z", "s2")
        facts, sent = fact_view(mem, "u"), len(scripted_llm.requests)
        assert sent >= 2
        result = mem.rebuild("u")
        assert len(scripted_llm.requests) == sent and result.llm_calls == 0 and result.llm_cache_hits >= 2
        assert fact_view(mem, "u") == facts
