"""The learned reader (graphmem.ingest.reader): a classifier over MiniLM sentence
vectors names a sentence's slot and whether its value holds, ends or changes;
the object finder takes the value from the sentence's shape.

The sentences here are not in the training file (a test checks that), so the
classifier tests are small held-out checks, not a replay of what it was fitted on.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from graphmem import Memory
from graphmem.embedding.embedder import default_embedder
from graphmem.ingest.extraction import Extraction, TurnContext
from graphmem.ingest.reader import Reader, classifier, labelled, objects
from graphmem.ingest.reader.classifier import Reading
from graphmem.ingest.reader.reader import candidates, drafts_for

# written for this test, none in data/sentences.tsv: one per topic, in registers the file has few of
UNSEEN = [
    ("residence", "honestly nairobi has been home base for me since 2020"),
    ("work", "I'm a line cook over at Dockside Grill, been there two years."),
    ("study", "Second-year med student at Queen's University here."),
    ("partner", "My fiancée Ingrid and I share a tiny flat."),
    ("pet", "our tortoise Gerald is older than me lol"),
    ("possession", "I ride an old Triumph Bonneville to work every day."),
    ("hobby", "Whittling spoons is what I do in the evenings to switch off."),
    ("favourite", "Kendrick Lamar is my favourite rapper, no contest."),
    ("diet", "I went vegetarian a couple of years back and stuck with it."),
]
ABSTAIN = ["Would it be smarter to rent in Lyon or buy?", "If I had a cat I'd call it Mango.",
           "My brother Jonas works at Ikea.", "Can you suggest a vegan lasagna recipe?",
           "You might enjoy pottery, it's very calming."]


@pytest.fixture(scope="module")
def model():
    return classifier.shipped()


@pytest.fixture(scope="module")
def embed():
    return default_embedder().embed


def test_the_shipped_weights_were_fitted_on_the_sentence_file_as_it_is():
    assert classifier.shipped().source_sha == classifier.data_sha(), "refit: python -m graphmem.ingest.reader.train"


def test_the_test_sentences_are_not_training_sentences():
    seen = {r.text.casefold() for r in labelled.load()}
    assert not {t.casefold() for _, t in UNSEEN} & seen and not {t.casefold() for t in ABSTAIN} & seen


def test_the_labelled_set_covers_every_topic_and_kind_and_mostly_abstains():
    rows = labelled.load()
    pairs = {(r.topic, r.kind) for r in rows}
    assert all((t, k) in pairs for t in labelled.TOPICS if t != "none" for k in labelled.KINDS)
    assert sum(r.topic == "none" for r in rows) >= 0.2 * len(rows)


def test_the_threshold_was_calibrated_not_chosen(model):
    assert 0.3 <= model.threshold <= 0.95


@pytest.mark.parametrize("topic,text", UNSEEN)
def test_unseen_phrasings_are_read_as_their_topic(model, embed, topic, text):
    reading = model.read(embed([text]))[0]
    assert reading.topic == topic, reading


def test_the_unseen_phrasings_are_mostly_sure(model, embed):
    readings = model.read(embed([t for _, t in UNSEEN]))
    assert sum(model.sure(r) for r in readings) >= len(UNSEEN) - 2


@pytest.mark.parametrize("text", ABSTAIN)
def test_questions_hypotheticals_and_others_news_are_never_candidates(text):
    turn = TurnContext(text=text, speaker="Ana", session_time=datetime(2024, 5, 1, tzinfo=UTC))
    assert candidates(turn) == []


def test_an_assistant_turn_is_never_read():
    turn = TurnContext(text="I moved to Oslo last year.", speaker="assistant", session_time=datetime(2024, 5, 1, tzinfo=UTC))
    assert candidates(turn) == []


@pytest.mark.parametrize("text,topic,expected", [
    ("Living in Ho Chi Minh City these days.", "residence", ["Ho Chi Minh City"]),
    ("I'm a porter at St. Thomas' Hospital.", "work", ["St. Thomas"]),
    ("Just bought a Kia EV9 and a Brompton.", "possession", ["Kia EV9", "Brompton"]),
    ("We got a lurcher called Dot.", "pet", ["Dot"]),
    ("Thanks, Maya! I'm seeing someone called Jude.", "partner", ["Jude"]),
    ("Embroidery is how I unwind.", "hobby", ["embroidery"]),
    ("I'm fully pescetarian now.", "diet", ["pescatarian"]),
])
def test_the_object_finder_takes_the_value_from_the_sentence_shape(text, topic, expected):
    found = [v.name for v in objects.values(text, topic)]
    assert [f for f in found if any(f.startswith(e) for e in expected)], found


@pytest.mark.parametrize("text,old,new", [
    ("We traded Leeds for York.", "Leeds", "York"),
    ("Switched from Lidl to a job at Aldi.", "Lidl", "Aldi"),
    ("Pottery has replaced knitting for me.", "knitting", "pottery"),
    ("I moved to Lyon from Paris.", "Paris", "Lyon"),
])
def test_a_swap_ends_the_old_value_and_starts_the_new_one(text, old, new):
    topic = "hobby" if "knitting" in text else ("work" if "Aldi" in text else "residence")
    ended, started = objects.swap_order(text, objects.values(text, topic))
    assert [v.name for v in ended] == [old] and started.name == new


def test_an_unsure_reading_stores_nothing():
    unsure = Reading("residence", 0.2, "holds", 0.9)
    weights = classifier.shipped()
    assert not weights.sure(unsure)

    class Always:
        def read(self, vectors):
            return [unsure] * len(vectors)

        def sure(self, reading):
            return weights.sure(reading)

    reader = Reader(lambda texts: np.zeros((len(texts), 384), dtype=np.float32), model=Always())
    turn = TurnContext(text="Home is Tbilisi now.", speaker="Ana", session_time=datetime(2024, 5, 1, tzinfo=UTC))
    assert reader.add([turn], [Extraction()])[0].facts == []


def test_an_ending_without_a_value_is_only_written_when_very_sure():
    sure, unsure = Reading("partner", 0.95, "ends", 0.95), Reading("partner", 0.7, "ends", 0.7)
    drafts, any_value = drafts_for("We finalised it in March, so it's over.", sure, "Ana")
    assert any_value and [d.kind for d in drafts] == ["end"]
    assert drafts_for("We finalised it in March, so it's over.", unsure, "Ana") == ([], False)


def _facts(mem: Memory, user: str, when: str) -> set[tuple[str, str]]:
    return {(f.predicate, f.object) for f in mem.facts(user, valid_at=when)}


def test_an_ending_closes_the_one_open_fact_of_its_slot(tmp_path):
    with Memory(data_dir=tmp_path) as mem:
        mem.write("u", [{"speaker": "user", "content": "My husband Idris is a carpenter."}], "2023-01-10")
        assert ("MARRIED_TO", "Idris") in _facts(mem, "u", "2023-02-01")
        mem.write("u", [{"speaker": "user", "content": "We finally got divorced."}],
                  "2023-09-10")
        assert ("MARRIED_TO", "Idris") in _facts(mem, "u", "2023-02-01")
        assert ("MARRIED_TO", "Idris") not in _facts(mem, "u", "2023-10-01")


def test_a_change_the_rules_do_not_know_moves_the_value(tmp_path):
    with Memory(data_dir=tmp_path) as mem:
        mem.write("u", [{"speaker": "user", "content": "Nairobi's been home for me for a decade."}], "2022-01-10")
        mem.write("u", [{"speaker": "user", "content": "Kampala is home now, we packed up in June."}],
                  "2022-09-10")
        assert ("LIVES_IN", "Nairobi") in _facts(mem, "u", "2022-03-01")
        now = _facts(mem, "u", "2022-10-01")
        assert ("LIVES_IN", "Kampala") in now and ("LIVES_IN", "Nairobi") not in now


def test_questions_hypotheticals_and_others_news_add_no_fact_to_the_rules():
    from graphmem.ingest.rules import RuleExtractor

    turns = [TurnContext(text=t, speaker="Ana", session_time=datetime(2024, 5, 1, tzinfo=UTC)) for t in ABSTAIN]
    assert RuleExtractor().extract(turns) == RuleExtractor(learned=False).extract(turns)


def test_the_rule_extractor_can_run_without_the_reader():
    turn = TurnContext(text="Boulder's been home for me since college.", speaker="Ana",
                       session_time=datetime(2024, 5, 1, tzinfo=UTC))
    from graphmem.ingest.rules import RuleExtractor

    assert RuleExtractor(learned=False).extract([turn])[0].facts == []
    assert [f.object for f in RuleExtractor().extract([turn])[0].facts] == ["Boulder"]
