"""The rule extractor: one test (or a few) per pattern family, plus the properties
every extraction must have (deterministic, self-contained facts, no crash on
hostile text, dates from the session time)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from dateutil.parser import parse as parse_date

from graphmem.schema.errors import InvalidInput
from graphmem.ingest.rules import extractor as rule_extractor
from graphmem.parsing import dates
from graphmem.ingest.extraction import ExtractedFact, Extraction, TurnContext
from graphmem.ingest.rules import RuleExtractor

SESSION = datetime(2024, 7, 15, 10, 0, tzinfo=UTC)  # a Monday
LOCOMO = Path(__file__).resolve().parent.parent / "data" / "locomo_dev7.json"


def run(text: str, speaker: str = "Caroline", when: datetime = SESSION) -> Extraction:
    return RuleExtractor().extract([TurnContext(text=text, speaker=speaker, session_time=when)])[0]


def facts(text: str, speaker: str = "Caroline", when: datetime = SESSION) -> list[ExtractedFact]:
    return run(text, speaker, when).facts


def triples(text: str, speaker: str = "Caroline") -> set[tuple[str, str, str]]:
    return {(f.subject, f.predicate, f.object) for f in facts(text, speaker)}


def only(text: str, predicate: str, speaker: str = "Caroline") -> ExtractedFact:
    found = [f for f in facts(text, speaker) if f.predicate == predicate]
    assert len(found) == 1, (text, [f.fact for f in facts(text, speaker)])
    return found[0]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


# --------------------------------------------------------------- the protocol


def test_implements_the_extractor_protocol():
    extractor = RuleExtractor()
    turns = [TurnContext(text=t, speaker="Mel", session_time=SESSION) for t in
             ["I live in Boston.", "Nice!", "I have a dog named Max."]]
    out = extractor.extract(turns)
    assert extractor.name == "rules-v1"
    assert [type(e) for e in out] == [Extraction] * 3
    assert [[f.predicate for f in e.facts] for e in out] == [["LIVES_IN"], [], ["HAS_PET"]]
    assert extractor.extract([]) == []


def test_rejects_what_is_not_a_turn():
    with pytest.raises(InvalidInput):
        RuleExtractor().extract(["I live in Boston."])  # type: ignore[list-item]


# ---------------------------------------------------------- residence, moves


def test_lives_in_is_single_valued_from_the_session_time():
    fact = only("I live in Boston.", "LIVES_IN")
    assert (fact.subject, fact.object, fact.fact) == ("Caroline", "Boston", "Caroline lives in Boston.")
    assert fact.single_valued and fact.slot is None
    assert fact.valid_at == SESSION and fact.invalid_at is None
    assert fact.importance == 0.8


@pytest.mark.parametrize("text", ["I've been living in New York City for years.", "We're now based in New York City.",
                                  "I currently live in New York City, near the park."])
def test_lives_in_variants(text):
    assert ("Caroline", "LIVES_IN", "New York City") in triples(text)


def test_move_is_an_event_with_a_derived_residence_from_the_resolved_date():
    found = facts("I moved to Shanghai last month.")
    move, home = found
    assert (move.predicate, move.object, move.single_valued) == ("MOVED_TO", "Shanghai", False)
    assert (home.predicate, home.object, home.single_valued) == ("LIVES_IN", "Shanghai", True)
    assert home.derived_from == [found.index(move)]
    assert move.valid_at == home.valid_at == utc(2024, 6, 1)
    assert home.valid_at.month == 6 and home.valid_at.year == 2024
    assert move.fact == "Caroline moved to Shanghai in June 2024."
    assert home.fact == "Caroline lives in Shanghai (since June 2024)."


def test_a_fronted_date_belongs_to_the_move():
    assert only("Last year, we moved to Denver.", "MOVED_TO").valid_at == utc(2023, 1, 1)


def test_move_from_one_place_to_another_ends_the_old_residence():
    found = facts("I moved from Sweden to Berlin two years ago.")
    by_object = {(f.predicate, f.object): f for f in found}
    old = by_object[("LIVES_IN", "Sweden")]
    assert old.valid_at is None and old.invalid_at == utc(2022, 1, 1)
    assert old.derived_from == [found.index(by_object[("MOVED_TO", "Berlin")])]
    assert by_object[("LIVES_IN", "Berlin")].valid_at == utc(2022, 1, 1)


def test_moving_in_the_future_is_a_plan_not_a_residence():
    found = facts("I'm moving to Chicago next month.")
    assert [(f.predicate, f.object) for f in found] == [("PLANS", "move to Chicago")]
    assert found[0].valid_at == utc(2024, 8, 1)


@pytest.mark.parametrize("text", ["I don't live in Paris anymore.", "I no longer live in Paris.",
                                  "I moved out of Paris."])
def test_negated_residence_ends_it_and_never_asserts_it(text):
    (fact,) = facts(text)
    assert (fact.predicate, fact.object) == ("LIVES_IN", "Paris")
    assert fact.valid_at is None and fact.invalid_at == SESSION
    assert fact.single_valued
    assert "no longer" in fact.fact


@pytest.mark.parametrize("text", ["I don't live in Paris.", "I never lived in Paris.",
                                  "If I lived in Paris I'd be happy.", "Do you live in Paris?",
                                  "I wish I lived in Paris."])
def test_negated_hedged_or_asked_residence_yields_nothing(text):
    assert facts(text) == []


def test_origin_and_past_residence():
    assert ("Caroline", "IS_FROM", "Sweden") in triples("I'm originally from Sweden.")
    assert ("Caroline", "LIVED_IN", "Tokyo") in triples("I used to live in Tokyo.")
    assert ("Caroline", "GREW_UP_IN", "Ohio") in triples("I grew up in Ohio.")


# --------------------------------------------------------------------- work


def test_works_at_and_as_are_single_valued():
    found = {f.predicate: f for f in facts("I work as a nurse at Mercy Hospital.")}
    assert found["WORKS_AS"].object == "nurse" and found["WORKS_AS"].single_valued
    assert found["WORKS_AT"].object == "Mercy Hospital" and found["WORKS_AT"].single_valued
    assert found["WORKS_AT"].fact == "Caroline works at Mercy Hospital."


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm a software engineer at Google.", {("WORKS_AS", "software engineer"), ("WORKS_AT", "Google")}),
        ("I got a job as a barista at Blue Bottle last week.", {("WORKS_AS", "barista"), ("WORKS_AT", "Blue Bottle")}),
        ("I started working at Stripe in March.", {("WORKS_AT", "Stripe")}),
        ("I'm an assistant manager now.", {("WORKS_AS", "assistant manager")}),
    ],
)
def test_work_variants(text, expected):
    assert {(f.predicate, f.object) for f in facts(text)} == expected


def test_a_new_job_holds_from_its_date():
    assert {f.valid_at for f in facts("I got a job as a barista at Blue Bottle last week.")} == {utc(2024, 7, 8)}


@pytest.mark.parametrize("text", ["I'm a big fan of jazz.", "I'm a good cook.", "I became a mom last year.",
                                  "I've worked with Python and C++.", "I'm a team player."])
def test_being_a_non_job_is_no_job(text):
    assert not any(f.predicate in ("WORKS_AS", "WORKS_AT") for f in facts(text))


def test_quitting_a_job_is_an_event_that_ends_works_at():
    found = facts("I quit my job at Microsoft last month.")
    left, ended = found
    assert (left.predicate, left.object, left.valid_at) == ("LEFT_JOB", "Microsoft", utc(2024, 6, 1))
    assert (ended.predicate, ended.object) == ("WORKS_AT", "Microsoft")
    assert ended.valid_at is None and ended.invalid_at == utc(2024, 6, 1)
    assert ended.derived_from == [0] and ended.single_valued


def test_no_longer_working_somewhere_ends_it():
    (fact,) = facts("I don't work at Google anymore.")
    assert (fact.predicate, fact.object, fact.invalid_at, fact.valid_at) == ("WORKS_AT", "Google", SESSION, None)


# ------------------------------------------------------------------ studies


def test_studies_topic_and_school():
    assert triples("I'm studying computer science at MIT.") == {
        ("Caroline", "STUDIES", "computer science"), ("Caroline", "STUDIES_AT", "MIT")}
    assert only("I'm a psychology student at Stanford University.", "STUDIES_AT").object == "Stanford University"
    assert only("I signed up for a pottery class yesterday.", "STUDIES").valid_at == utc(2024, 7, 14)


# ------------------------------------------------------------------- family


@pytest.mark.parametrize(
    "text", ["My daughter Lily started school.", "My daughter's name is Lily.", "My daughter, Lily, loves it.",
             "I have a daughter named Lily.", "Lily is my daughter."])
def test_named_daughter(text):
    fact = only(text, "HAS_DAUGHTER")
    assert (fact.subject, fact.object, fact.importance) == ("Caroline", "Lily", 0.9)
    assert fact.fact == "Caroline has a daughter named Lily."


@pytest.mark.parametrize(
    ("text", "predicate", "name"),
    [("My son Tom plays chess.", "HAS_SON", "Tom"), ("My sister Anna is visiting.", "HAS_SISTER", "Anna"),
     ("My brother, Jake, called.", "HAS_BROTHER", "Jake"), ("My mom Linda cooked.", "HAS_MOTHER", "Linda"),
     ("My dad Robert retired.", "HAS_FATHER", "Robert"), ("My kid Sam is five.", "HAS_CHILD", "Sam")],
)
def test_family_relations(text, predicate, name):
    assert only(text, predicate).object == name


def test_unnamed_relative_is_named_after_the_speaker():
    assert only("I have a son.", "HAS_SON").object == "Caroline's son"


def test_partners_are_single_valued():
    married = only("I'm married to John.", "MARRIED_TO")
    assert married.object == "John" and married.single_valued and married.importance == 0.9
    assert only("My husband John is a teacher.", "MARRIED_TO").object == "John"
    assert only("My girlfriend Sam loves hiking.", "PARTNER_OF").object == "Sam"
    ended = only("I broke up with Sam last week.", "PARTNER_OF")
    assert ended.invalid_at == utc(2024, 7, 8) and ended.valid_at is None


def test_a_comma_list_is_not_a_name():
    assert not any(f.predicate == "PARTNER_OF" for f in facts("My girlfriend, Toby and I are going camping."))


# -------------------------------------------------------- third-person subjects


def test_named_third_person_subject():
    fact = only("Caroline lives in Boston.", "LIVES_IN", speaker="Melanie")
    assert fact.subject == "Caroline" and fact.fact == "Caroline lives in Boston."


def test_named_relative_is_the_subject_of_what_they_do():
    assert triples("My sister Anna works at Google.", speaker="Melanie") == {
        ("Anna", "WORKS_AT", "Google"), ("Melanie", "HAS_SISTER", "Anna")}


def test_unnamed_relative_subject():
    assert ("Melanie's sister", "LIVES_IN", "Denver") in triples("My sister lives in Denver.", speaker="Melanie")


def test_pronoun_subjects_are_left_alone():
    assert facts("She lives in Boston. He works at Google. They love pizza.") == []


# --------------------------------------------------------------------- pets


def test_named_pet_has_a_species_slot():
    fact = only("I have a dog named Max.", "HAS_PET")
    assert (fact.object, fact.slot, fact.single_valued) == ("Max", "PET:dog", True)
    assert fact.fact == "Caroline has a dog named Max."


@pytest.mark.parametrize("text", ["We renamed our dog to Rex.", "My dog is now called Rex.",
                                  "We changed our dog's name to Rex.", "I renamed my puppy Rex."])
def test_pet_rename_shares_the_slot_so_it_supersedes(text):
    before = only("I have a dog named Max.", "HAS_PET")
    after = only(text, "HAS_PET")
    assert (after.object, after.slot, after.single_valued) == ("Rex", before.slot, True)


def test_pet_named_in_the_next_sentence():
    found = facts("I adopted a pup from a shelter last week. His name's Ned and he's great.", speaker="Andrew")
    assert ("HAS_PET", "dog", None) in {(f.predicate, f.object, f.slot) for f in found}
    assert ("HAS_PET", "Ned", "PET:dog") in {(f.predicate, f.object, f.slot) for f in found}


@pytest.mark.parametrize("text", ["I had a hot dog for lunch.", "I have a dog allergy.",
                                  "My sister has a dog named Max."])
def test_not_pets_of_the_speaker(text):
    assert not any(f.predicate == "HAS_PET" and f.subject == "Caroline" for f in facts(text))


# --------------------------------------------------------- possessions, likes


def test_possessions_are_multi_valued():
    house = only("I bought a house last year.", "OWNS")
    assert (house.object, house.single_valued, house.valid_at) == ("house", False, utc(2023, 1, 1))
    assert only("I got a new car.", "OWNS").object == "car"
    assert only("I own a piano.", "OWNS").fact == "Caroline owns a piano."


def test_likes_and_dislikes_share_a_slot_per_thing():
    like = only("I love sushi.", "LIKES")
    dislike = only("I don't like sushi anymore.", "DISLIKES")
    assert like.slot == dislike.slot == "PREF:sushi" and like.single_valued
    assert only("I love hiking.", "LIKES").slot != like.slot
    assert like.importance == 0.5 and like.fact == "Caroline loves sushi."


@pytest.mark.parametrize(
    ("text", "obj"),
    [("I love to paint!", "painting"), ("I'm a big fan of pottery.", "pottery"), ("I really enjoy yoga.", "yoga"),
     ("My favorite band is The Beatles.", "Beatles"), ("I'm into electronic music.", "electronic music")],
)
def test_like_variants(text, obj):
    assert only(text, "LIKES").object == obj


@pytest.mark.parametrize("text", ["I love it!", "I love that you did that.", "I love the photo!",
                                  "I like how it looks.", "I'd love to see it.", "Love you!"])
def test_reactions_are_not_preferences(text):
    assert facts(text) == []


def test_dislikes():
    assert only("I hate traffic.", "DISLIKES").object == "traffic"
    assert only("I can't stand horror movies.", "DISLIKES").fact == "Caroline can't stand horror movies."


# --------------------------------------------------------- diet and allergies


def test_diet_is_single_valued():
    fact = only("I'm vegetarian.", "DIET")
    assert (fact.object, fact.slot, fact.single_valued, fact.importance) == ("vegetarian", "DIET", True, 0.9)
    assert only("I went vegan last year.", "DIET").valid_at == utc(2023, 1, 1)


def test_allergies_split_into_items():
    found = facts("I'm allergic to peanuts and shellfish.")
    assert [(f.predicate, f.object) for f in found] == [("ALLERGIC_TO", "peanuts"), ("ALLERGIC_TO", "shellfish")]
    assert {f.importance for f in found} == {0.9}
    assert only("I have a severe peanut allergy.", "ALLERGIC_TO").object == "peanut"


def test_spicy_food_pair_shares_a_slot():
    avoid = only("I don't eat spicy food.", "AVOIDS")
    handle = only("These days I can handle a bit of spice.", "EATS")
    eat = only("I eat spicy food now.", "EATS")
    assert avoid.object == handle.object == eat.object == "spicy food"
    assert avoid.slot == handle.slot == eat.slot == "DIET:spicy food"
    assert avoid.single_valued and eat.single_valued


def test_food_verbs_need_food():
    assert facts("I can't handle the pressure.") == []
    assert facts("I avoid crowds.") == []


# ------------------------------------------------------------ plans, events


def test_plans_resolve_to_the_future():
    fact = only("I'm planning to visit Japan next month.", "PLANS")
    assert (fact.object, fact.valid_at, fact.single_valued, fact.importance) == (
        "visit Japan", utc(2024, 8, 1), False, 0.5)
    assert only("I'm planning to visit Japan in March.", "PLANS").valid_at == utc(2025, 3, 1)


def test_going_to_is_a_plan_only_with_a_date():
    assert only("I'm going to visit my parents next week.", "PLANS").object == "visit Caroline's parents"
    assert facts("I'm going to visit my parents.") == []
    assert facts("I'll be there tomorrow.") == []


def test_plans_are_multi_valued():
    found = facts("I'm planning to visit Japan. I'm hoping to learn Spanish.")
    assert [f.object for f in found] == ["visit Japan", "learn Spanish"]


@pytest.mark.parametrize(
    ("text", "obj", "day"),
    [("I went to a concert last Saturday.", "concert", utc(2024, 7, 13)),
     ("I attended the LGBTQ support group yesterday.", "LGBTQ support group", utc(2024, 7, 14)),
     ("I went camping last weekend.", "camping", utc(2024, 7, 13))],
)
def test_events_attended_happen_at_the_resolved_date(text, obj, day):
    fact = only(text, "ATTENDED")
    assert (fact.object, fact.valid_at, fact.importance, fact.single_valued) == (obj, day, 0.4, False)


def test_event_without_a_date_happens_at_the_session():
    fact = only("I went to a concert with friends.", "ATTENDED")
    assert fact.valid_at == SESSION and fact.fact == "Caroline went to a concert."


def test_visits():
    assert only("I visited Paris in March.", "VISITED").valid_at == utc(2024, 3, 1)


def test_a_date_belongs_to_its_own_clause():
    found = {f.predicate: f for f in facts("I live in Boston and I went to a concert yesterday.")}
    assert found["LIVES_IN"].valid_at == SESSION
    assert found["ATTENDED"].valid_at == utc(2024, 7, 14)


# ---------------------------------------------------- facts and entities


def test_every_fact_is_self_contained_and_its_names_are_entities():
    text = ("I moved to Shanghai last month. My sister Anna works at Google. I have a dog named Max. "
            "I'm allergic to peanuts. I love hiking.")
    out = run(text, speaker="Mel")
    names = {e.name for e in out.entities}
    assert len(out.facts) >= 6
    for fact in out.facts:
        assert fact.fact.startswith(fact.subject) and fact.fact.endswith(".")
        assert " I " not in f" {fact.fact} " and " my " not in f" {fact.fact.lower()} "
        assert {fact.subject, fact.object} <= names
        for moment in (fact.valid_at, fact.invalid_at):
            assert moment is None or moment.utcoffset() == timedelta(0)


def test_proper_nouns_are_entities_but_starters_months_and_pronouns_are_not():
    out = run("Hey Mel! Yesterday Caroline and I visited the Grand Canyon. On Monday in March, I met Bob at Acme Corp.",
              speaker="Jon")
    names = {e.name for e in out.entities}
    assert {"Mel", "Caroline", "Grand Canyon", "Bob", "Acme Corp"} <= names
    assert not names & {"Hey", "Yesterday", "I", "On", "Monday", "March"}


def test_a_sentence_opening_word_counts_only_when_known_as_a_name():
    assert [e.name for e in run("Painting helps me relax.").entities] == []
    assert "Toby" in {e.name for e in run("Toby is so cute. I walk Toby daily.").entities}


def test_entity_types_follow_the_facts():
    types = {e.name: e.entity_type for e in run("I moved to Shanghai. My sister Anna works at Google.").entities}
    assert types["Shanghai"] == "Place" and types["Google"] == "Organization"
    assert types["Anna"] == "Person" and types["Caroline"] == "Person"


@pytest.mark.parametrize(
    "text", ["Thanks, that sounds great!", "What a lovely day.", "Haha, same here.", "Do you live in Boston?",
             "Can't wait to see you!", ""],
)
def test_sentences_without_facts_give_no_facts(text):
    assert facts(text) == []


def test_naive_session_time_is_utc():
    (move, home) = facts("I moved to Oslo yesterday.", when=datetime(2024, 7, 15, 10, 0))
    assert move.valid_at == home.valid_at == utc(2024, 7, 14)
    assert facts("I live in Oslo.", when=datetime(2024, 7, 15, 10, 0))[0].valid_at == SESSION


def test_deterministic():
    text = ("I moved to Shanghai last month. My sister Anna works at Google. I'm planning to visit Japan next month. "
            "I went to a concert last Saturday. I love hiking and my dog Max.")
    turns = [TurnContext(text=text, speaker="A", session_time=SESSION)] * 3
    first = [e.model_dump() for e in RuleExtractor().extract(turns)]
    second = [e.model_dump() for e in RuleExtractor().extract(turns)]
    assert first == second and first[0] == first[1] == first[2]


def test_dateparser_is_only_called_for_sentences_with_calendar_dates(monkeypatch):
    import dateparser  # dates imports it lazily, inside the one function that needs it

    calls = []
    original = dateparser.parse
    monkeypatch.setattr(dateparser, "parse", lambda *a, **k: calls.append(a) or original(*a, **k))
    dates._resolve.cache_clear()
    facts("I live in Boston. I moved to Oslo last month. I love hiking. I went to a concert yesterday.")
    assert calls == []
    assert only("I went to a concert on March 5.", "ATTENDED").valid_at == utc(2024, 3, 5)
    assert len(calls) == 1


# ------------------------------------------------------------------ hostile


@pytest.mark.parametrize(
    "text",
    [
        "I live in '; MATCH (n) DETACH DELETE n //. I love `CALL db.drop()` and {x: $y}.",
        "I moved to \"}) RETURN 1 UNION MATCH (m) SET m.name = 'x' //\" last month.",
        "I live in Zürich and I love crème brûlée. 我住在上海。 Я живу в Москве. "
        "\u202e\u0000\ufeff \U0001f600 " * 3,
        "I live in " * 3000,
        "a" * 20_000,
        ("I love hiking, " * 1500)[:20_000],
        "Anna Anna Anna " * 1400,
        "." * 5000 + "?" * 5000 + "\n" * 5000,
    ],
)
def test_hostile_text_does_not_crash(text):
    out = run(text)
    assert isinstance(out, Extraction)
    for fact in out.facts:
        assert isinstance(fact.fact, str) and fact.subject and fact.object


def test_cypher_looking_text_is_kept_as_plain_text():
    assert only("I love DETACH DELETE jokes.", "LIKES").object == "DETACH DELETE jokes"
    assert triples("I live in Boston'; DROP DATABASE neo4j; //") == {("Caroline", "LIVES_IN", "Boston")}


# -------------------------------------------------------------- real turns


def locomo_turns(limit: int) -> list[TurnContext]:
    data = json.loads(LOCOMO.read_text(encoding="utf-8"))
    turns = []
    for conversation in data:
        c = conversation["conversation"]
        for key, value in c.items():
            if key.startswith("session_") and isinstance(value, list):
                when = parse_date(c[f"{key}_date_time"]).replace(tzinfo=UTC)
                turns += [TurnContext(text=t["text"], speaker=t["speaker"], session_time=when, turn_id=t["dia_id"])
                          for t in value]
    return turns[:limit]


def test_processes_300_real_chat_turns():
    turns = locomo_turns(300)
    out = RuleExtractor().extract(turns)
    assert len(out) == 300
    found = [f for e in out for f in e.facts]
    assert len(found) >= 10
    assert {"ATTENDED", "LIKES"} <= {f.predicate for f in found}
    speakers = {t.speaker for t in turns}
    assert all(f.subject for f in found) and {f.subject for f in found} & speakers
    support_group = next(e for t, e in zip(turns, out) if t.turn_id == "D1:3")
    assert [(f.subject, f.predicate, f.object, f.valid_at) for f in support_group.facts] == [
        ("Caroline", "ATTENDED", "LGBTQ support group", utc(2023, 5, 7))]


def test_keyword_prefilter_never_changes_the_result(monkeypatch):
    """Each trigger's keywords must occur in every sentence it can match."""
    turns = locomo_turns(500) + [TurnContext(text=t, speaker="Caroline", session_time=SESSION) for t in (
        "We were also at McGee's bar.", "I'm now a nurse at Mercy.", "I really can't stand horror movies.",
        "I've finally started surfing.", "My dog is now called Rex.", "I'm originally from Sweden.")]
    with_keywords = RuleExtractor().extract(turns)
    from graphmem.ingest.rules.drafts import Rule
    from graphmem.ingest.rules.grammar import Trigger

    monkeypatch.setattr(rule_extractor, "HANDLERS", tuple(Rule(Trigger(t.pattern, ()), h, g)
                                                          for t, h, g in rule_extractor.HANDLERS))
    assert RuleExtractor().extract(turns) == with_keywords


def test_until_sets_an_expiry_not_a_start():
    from datetime import datetime, timezone

    from graphmem.ingest.extraction import TurnContext
    from graphmem.ingest.rules import RuleExtractor

    wednesday = datetime(2024, 5, 1, 9, tzinfo=timezone.utc)
    [x] = RuleExtractor().extract([TurnContext(text="I live in Berlin until Friday.", speaker="user", session_time=wednesday)])
    [fact] = [f for f in x.facts if f.predicate == "LIVES_IN"]
    assert fact.valid_at == wednesday
    assert fact.expires_at == datetime(2024, 5, 4, tzinfo=timezone.utc)
