"""A slot's replay does not depend on the order its stored facts were read in.

Why: the bulk paths (`graph.bulk_facts`, `ingest.session_facts`) read a slot's
facts with one MATCH and replay new facts over them. FalkorDB returns edges in
id order, and it reuses the ids of deleted edges, so after a forget the read
order is not the creation order. These property tests show the placement
rules never consult that order: the same stored facts, read in any order, give
the same final slot and the same decisions.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from itertools import count

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.schema.models import FactEdge
from graphmem.schema.slot_replay import Incoming, replay_slot

START = datetime(2024, 1, 1, tzinfo=timezone.utc)
VALUES = ["oslo", "lima", "kyoto"]
STATED = {f"ep{i}": START + timedelta(days=30 * i) for i in range(6)}


@st.composite
def incoming(draw, single_valued: bool) -> tuple:
    """One fact to place, as (value, start month or None, end month or None, cited episode or None, write day)."""
    value = draw(st.sampled_from(VALUES))
    start = draw(st.one_of(st.none(), st.integers(0, 5)))
    end = draw(st.one_of(st.none(), st.integers(1, 6))) if start is not None else None
    if end is not None and end <= start:
        end = None
    episode = draw(st.one_of(st.none(), st.sampled_from(sorted(STATED))))
    return value, start, end, episode, draw(st.integers(0, 400))


def as_incoming(spec: tuple, single_valued: bool, uuid: str) -> Incoming:
    value, start, end, episode, day = spec
    written = START + timedelta(days=day)
    edge = FactEdge(
        uuid=uuid, group_id="u", name="LIVES_IN", fact=f"lives in {value}",
        source_node_uuid="me", target_node_uuid=value, created_at=written,
        valid_at=START + timedelta(days=30 * start) if start is not None else None,
        invalid_at=START + timedelta(days=30 * end) if end is not None else None,
        episodes=[episode] if episode else [],
    )
    return Incoming(edge, single_valued, written)


def replay(stored: list[FactEdge], specs: list[tuple], single_valued: bool, prefix: str):
    names = count()
    uuids = count()
    items = [as_incoming(s, single_valued, f"{prefix}-new{next(names)}") for s in specs]
    return replay_slot(stored, items, STATED, lambda: f"{prefix}-copy{next(uuids)}")


@settings(max_examples=300, deadline=None)
@given(single_valued=st.booleans(), data=st.data())
def test_stored_facts_in_any_order_give_the_same_slot(single_valued, data):
    first = data.draw(st.lists(incoming(single_valued), min_size=1, max_size=8), label="first")
    second = data.draw(st.lists(incoming(single_valued), min_size=1, max_size=6), label="second")
    stored = list(replay([], first, single_valued, "a").facts.values())
    shuffled = data.draw(st.permutations(stored), label="read order")

    in_order = replay(stored, second, single_valued, "b")
    reordered = replay(list(shuffled), second, single_valued, "b")

    assert reordered.results == in_order.results
    assert reordered.facts == in_order.facts
    assert reordered.origin == in_order.origin
