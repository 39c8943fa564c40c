"""Decay: the score, the reranker's order, and capacity archiving that never deletes."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

from graphmem import Memory, Settings
from graphmem.schema.decay import decay_rerank, decay_score, to_archive

NOW = datetime(2024, 6, 1, tzinfo=timezone.utc)


def fact(uuid, importance=0.5, accesses=0, accessed_days_ago=None, created_days_ago=0):
    return SimpleNamespace(
        uuid=uuid, importance=importance, access_count=accesses,
        last_accessed_at=None if accessed_days_ago is None else NOW - timedelta(days=accessed_days_ago),
        created_at=NOW - timedelta(days=created_days_ago),
    )


def test_score_is_importance_times_recency_times_frequency():
    assert decay_score(0.8, 0, None, NOW, NOW) == 0.8
    assert abs(decay_score(0.8, 0, None, NOW - timedelta(days=30), NOW) - 0.4) < 1e-9
    assert abs(decay_score(0.8, 0, NOW - timedelta(days=60), NOW - timedelta(days=90), NOW) - 0.2) < 1e-9
    assert decay_score(0.5, 3, None, NOW, NOW) > decay_score(0.5, 1, None, NOW, NOW) > decay_score(0.5, 0, None, NOW, NOW)


def test_decay_reranker_orders_as_specified():
    candidates = [
        fact("old-unimportant", 0.2, created_days_ago=90),
        fact("fresh-important", 0.9),
        fact("old-but-used", 0.5, accesses=5, accessed_days_ago=1, created_days_ago=300),
        fact("fresh-unimportant", 0.2),
        fact("tie-a", 0.5, created_days_ago=10),
        fact("tie-b", 0.5, created_days_ago=10),
    ]
    order = [s.doc_id for s in decay_rerank(candidates, NOW)]
    assert order == ["old-but-used", "fresh-important", "tie-a", "tie-b", "fresh-unimportant", "old-unimportant"]


def test_capacity_archives_the_lowest_first():
    candidates = [fact("a", 0.9), fact("b", 0.1), fact("c", 0.5)]
    assert to_archive(candidates, 2, NOW) == ["b"]
    assert to_archive(candidates, 3, NOW) == []


def test_capacity_archives_out_of_search_and_restore_brings_it_back(tmp_path, embedder):
    settings = Settings(data_dir=tmp_path / "gm", capacity_per_user=2)
    with Memory(settings=settings, embedder=embedder) as mem:
        mem.add_fact("u", "user", "likes", "jazz", importance=0.9, single_valued=False)
        mem.add_fact("u", "user", "allergic_to", "peanuts", importance=0.95, single_valued=False)
        mem.add_fact("u", "user", "likes", "beige paint", importance=0.05, single_valued=False)
        facts = {f.object: f for f in mem.facts("u")}
        assert len(facts) == 3, "archiving keeps every fact"
        assert facts["beige paint"].archived_at is not None
        assert facts["jazz"].archived_at is None and facts["peanuts"].archived_at is None
        packet = mem.search("u", "Do I like beige paint?", now="2030-01-01")
        assert "beige paint" not in [f.object for f in packet.facts]
        assert mem.restore("u", facts["beige paint"].uuid)
        assert {f.object: f.archived_at for f in mem.facts("u")}["beige paint"] is None
