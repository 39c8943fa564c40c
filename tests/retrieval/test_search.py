"""Memory.search after the demo timeline: now, before, as of, and 'you never told me'."""

from __future__ import annotations

import pytest

from graphmem import InvalidInput
from graphmem.retrieval.packet import FACTS_TITLE, estimate_tokens
from graphmem.retrieval.search import TOKENS_PER_RESULT

NOW = "2024-09-15T12:00:00Z"
TIMELINE = [
    ("2024-03-10T09:00:00Z", "march", "I live in Beijing."),
    ("2024-07-10T09:00:00Z", "july", "I moved to Shanghai last month."),
    ("2024-09-02T09:00:00Z", "september", "I still live in Shanghai."),
]


@pytest.fixture
def demo(memory):
    for when, session_id, text in TIMELINE:
        memory.write("demo", [{"role": "user", "content": text}], when, session_id=session_id)
    return memory


def homes(packet):
    return [f for f in packet.facts if f.predicate == "LIVES_IN"]


def test_where_do_i_live_now(demo):
    packet = demo.search("demo", "Where do I live?", now=NOW)
    assert not packet.abstain and packet.mode == "current"
    [home] = homes(packet)
    assert (home.object, home.status) == ("Shanghai", "current")
    assert packet.cited_turn_ids and set(home.source_turn_ids) <= set(packet.cited_turn_ids)


def test_where_did_i_live_before(demo):
    packet = demo.search("demo", "Where did I live before?", now=NOW)
    assert packet.mode == "historical"
    first = homes(packet)[0]
    assert (first.object, first.status) == ("Beijing", "superseded")
    assert (first.valid_at.strftime("%Y-%m"), first.invalid_at.strftime("%Y-%m")) == ("2024-03", "2024-06")
    assert "Shanghai" in first.superseded_by_fact
    assert "march#0" in packet.cited_turn_ids


def test_where_did_i_live_in_april(demo):
    packet = demo.search("demo", "Where did I live in April?", now=NOW)
    assert packet.mode == "as_of"
    assert [f.object for f in homes(packet)] == ["Beijing"]


def test_as_of_and_known_at_parameters(demo):
    assert [f.object for f in homes(demo.search("demo", "Where do I live?", as_of="2024-04-01", now=NOW))] == ["Beijing"]
    assert demo.search("demo", "Where do I live?", known_at="2000-01-01", now=NOW).facts == ()


def test_never_told_abstains(demo):
    packet = demo.search("demo", "What is my daughter's name?", now=NOW)
    assert packet.abstain and packet.reason
    assert packet.facts == () and packet.cited_turn_ids == ()
    assert "nothing relevant" in packet.to_prompt()


def test_packet_renders_dated_lines_with_sources_within_budget(demo):
    packet = demo.search("demo", "Where did I live before?", now=NOW, limit=10)
    text = packet.to_prompt(budget_tokens=1500)
    fact_lines = [line for line in text.splitlines() if line.startswith("- [") and "turns" in line]
    assert fact_lines and all(" -> " in line and "turns " in line for line in fact_lines)
    assert packet.tokens <= 1500 and estimate_tokens(text) <= 1500
    assert packet.model_dump(mode="json")["facts"][0]["source_turn_ids"]


def test_search_counts_access(demo):
    before = {f.uuid: f.access_count for f in demo.facts("demo")}
    packet = demo.search("demo", "Where do I live?", now=NOW)
    after = {f.uuid: f for f in demo.facts("demo")}
    for fact in packet.facts:
        if fact.uuid in after:
            assert after[fact.uuid].access_count == before[fact.uuid] + 1
            assert after[fact.uuid].last_accessed_at is not None


def test_unknown_user_abstains_and_no_graph_is_created(memory):
    packet = memory.search("stranger", "Where do I live?")
    assert packet.abstain and "nothing has ever been stored" in packet.reason
    assert "stranger" not in memory.users()


@pytest.mark.parametrize("query", ["", "   ", "x" * 2_001, None, 42])
def test_empty_huge_or_non_string_queries_are_refused(demo, query):
    with pytest.raises(InvalidInput):
        demo.search("demo", query)


@pytest.mark.parametrize("bad", [{"now": "soon"}, {"as_of": "2024-13-45"}, {"known_at": object()}, {"limit": 0}, {"limit": 1000}])
def test_malformed_parameters_are_refused(demo, bad):
    with pytest.raises(InvalidInput):
        demo.search("demo", "Where do I live?", **bad)


def test_hostile_query_text_is_harmless(demo):
    text = "') MATCH (n) DETACH DELETE n // where do I live"
    packet = demo.search("demo", text, now=NOW)
    assert packet.query == text
    assert [f.object for f in demo.facts("demo") if f.predicate == "LIVES_IN"] == ["Shanghai"]


PARK = "Who did I play with in the park?"


def test_a_fact_stated_in_300_turns_of_one_session_is_still_found(memory):
    """Issue 8: one fact citing 300 turns made the packet empty but not abstaining."""
    turns = [{"role": "user", "content": f"On day {i} I played with my friend Sam {i} in the park."} for i in range(300)]
    memory.write("u", turns, "2024-05-01")
    packet = memory.search("u", PARK)
    assert not packet.abstain and packet.facts and packet.episodes
    [friend] = [f for f in packet.facts if f.object == "Sam"]
    assert friend.sources_total == 300 and len(friend.source_turn_ids) == 3
    assert "+297 more | confidence" in friend.line()
    assert packet.tokens <= TOKENS_PER_RESULT * 10
    assert set(friend.source_turn_ids) <= set(packet.cited_turn_ids)


def test_a_fact_restated_in_many_sessions_leaves_room_for_the_evidence(memory):
    """Issue 8: 700 restatements cut the evidence to 3 turns; here 30 against a small budget."""
    for n in range(30):
        memory.write("u", [{"role": "user", "content": "I played with my friend Sam in the park."}],
                     f"2024-05-{n + 1:02d}", session_id=f"day{n}")
    # 175: the fact line also carries confidence / scope / expires / reason (issue 14, ~25 tokens)
    packet = memory.search("u", PARK, limit=5, budget_tokens=175)
    [friend] = [f for f in packet.facts if f.object == "Sam"]
    assert (friend.sources_total, len(friend.source_turn_ids)) == (30, 3)
    assert "+27 more" in packet.to_prompt()
    assert len(packet.episodes) == 5 and packet.tokens <= 175
    assert set(friend.source_turn_ids) <= set(packet.cited_turn_ids)


def test_a_packet_that_does_not_abstain_keeps_its_best_line_over_any_budget(demo):
    packet = demo.search("demo", "Where do I live?", now=NOW, budget_tokens=1)
    assert not packet.abstain and len(packet.facts) + len(packet.episodes) == 1


def test_packet_lists_the_user_and_the_city_with_summaries(demo):
    packet = demo.search("demo", "Where do I live?", now=NOW)
    entities = {e.name: e for e in packet.entities}
    assert {"user", "Shanghai"} <= set(entities) and "Beijing" not in entities
    assert all("Shanghai" in entities[name].summary for name in ("user", "Shanghai"))
    assert entities["Shanghai"].fact_uuids and set(entities["Shanghai"].fact_uuids) <= {f.uuid for f in packet.facts}
    assert entities["Shanghai"].valid_at.strftime("%Y-%m") == "2024-06" and entities["Shanghai"].invalid_at is None
    assert entities["Shanghai"].known_since is not None
    assert "ENTITIES" in packet.to_prompt() and "- [2024-06-01 -> ...] Shanghai" in packet.to_prompt()
    assert {e["name"] for e in packet.model_dump(mode="json")["entities"]} >= {"user", "Shanghai"}


def test_packet_entities_are_as_of_the_asked_time(demo):
    packet = demo.search("demo", "Where did I live in April?", now=NOW)
    entities = {e.name: e for e in packet.entities}
    assert "Beijing" in entities and "Shanghai" not in entities
    assert "Shanghai" not in entities["user"].summary and "Beijing" in entities["user"].summary
    assert entities["Beijing"].invalid_at.strftime("%Y-%m") == "2024-06"


def test_an_unknown_entity_is_not_invented(demo):
    packet = demo.search("demo", "Do I still live in Shanghai or in Zorblaxtown?", now=NOW)
    assert not packet.abstain
    assert {e.name for e in packet.entities} == {"user", "Shanghai"}
    assert "Zorblax" not in packet.to_prompt().split("ENTITIES")[-1]


def test_abstaining_packets_list_no_entities(demo):
    packet = demo.search("demo", "What is my daughter's name?", now=NOW)
    assert packet.abstain and packet.entities == ()


def test_entities_are_dropped_before_facts_when_the_budget_is_tight(demo):
    roomy = demo.search("demo", "Where do I live?", now=NOW, budget_tokens=1500)
    tight = demo.search("demo", "Where do I live?", now=NOW, budget_tokens=roomy.tokens - 1)
    assert len(roomy.entities) == 2 and len(tight.entities) < 2
    assert (tight.facts, tight.episodes) == (roomy.facts, roomy.episodes)
    assert tight.tokens < roomy.tokens and estimate_tokens(tight.to_prompt(tight.tokens)) <= tight.tokens


@pytest.mark.parametrize("budget", [1, 20, 60])
def test_a_packet_cut_to_a_small_budget_still_prompts_its_best_line(demo, budget):
    """The packet keeps its best line at any budget (`packet_lines.fit`); its prompt once
    came out empty at 20 tokens and a bare title at 60, while the packet held the fact."""
    packet = demo.search("demo", "Where do I live?", now=NOW, budget_tokens=budget)
    prompt = packet.to_prompt(budget).splitlines()
    assert not packet.abstain and packet.facts
    assert prompt[:2] == [FACTS_TITLE, packet.facts[0].line()]
    titles = [i for i, line in enumerate(prompt) if not line.startswith("- ")]
    assert all(i + 1 < len(prompt) and prompt[i + 1].startswith("- ") for i in titles), prompt


def test_an_expired_fact_does_not_come_back_through_an_entity_summary(demo):
    demo.add_fact("demo", "user", "stays_at", "Hotel Aurora", fact="User stays at Hotel Aurora.",
                  valid_at="2024-09-01", expires_at="2024-09-10", single_valued=False)
    packet = demo.search("demo", "Where do I live?", now=NOW)
    user = next(e for e in packet.entities if e.name == "user")
    assert "Shanghai" in user.summary
    assert "Aurora" not in packet.to_prompt() and "Aurora" not in str(packet.model_dump())
