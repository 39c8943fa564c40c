"""Endings and new values in more ordinary words (issue 12): each test names what a
sentence ends or starts, and what a look-alike sentence must not yield."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.ingest.extraction import TurnContext
from graphmem.ingest.rules import RuleExtractor

SESSION = datetime(2024, 7, 15, 10, 0, tzinfo=UTC)


def facts(text: str, speaker: str = "Ann") -> list[tuple[str, ...]]:
    """(subject, predicate, object[, "end"]) in the order the write path resolves them."""
    [x] = RuleExtractor().extract([TurnContext(text=text, speaker=speaker, session_time=SESSION)])
    return [(f.subject, f.predicate, f.object) + (("end",) if f.valid_at is None else ()) for f in x.facts]


@pytest.mark.parametrize("text,fact", [
    ("I call Toronto home.", ("Ann", "LIVES_IN", "Toronto")),
    ("We've just moved into a new place in Ottawa.", ("Ann", "LIVES_IN", "Ottawa")),
    ("I live on St. John's Road in Cambridge.", ("Ann", "LIVES_IN", "Cambridge")),
    ("We packed up and moved to Calgary.", ("Ann", "LIVES_IN", "Calgary")),
    ("I moved back home to Seville.", ("Ann", "LIVES_IN", "Seville")),
    ("We left Austin and settled in Portland.", ("Ann", "LIVES_IN", "Portland")),
    ("We moved out of Brooklyn and now live in Queens.", ("Ann", "LIVES_IN", "Queens")),
    ("I'm employed by Contoso as a designer.", ("Ann", "WORKS_AT", "Contoso")),
    ("I traded in my Kawasaki for a Ducati.", ("Ann", "OWNS", "Ducati")),
    ("My favourite podcast is now Radiolab.", ("Ann", "LIKES", "Radiolab")),
    ("I'm hooked on surfing.", ("Ann", "LIKES", "surfing")),
])
def test_a_state_said_in_other_words(text, fact):
    assert fact in facts(text)


@pytest.mark.parametrize("text,ended", [
    ("Contoso let me go in May.", ("Ann", "WORKS_AT", "Contoso", "end")),
    ("Globex laid me off.", ("Ann", "WORKS_AT", "Globex", "end")),
    ("I stopped working at St. George's Hospital.", ("Ann", "WORKS_AT", "St. George's Hospital", "end")),
    ("I dropped out of Delft University.", ("Ann", "STUDIES_AT", "Delft University", "end")),
    ("I traded in my Kawasaki for a Ducati.", ("Ann", "OWNS", "Kawasaki", "end")),
    ("My road bike got stolen.", ("Ann", "OWNS", "road bike", "end")),
    ("I no longer have the Fiat Panda.", ("Ann", "OWNS", "Fiat Panda", "end")),
    ("I don't have a car anymore.", ("Ann", "OWNS", "car", "end")),
    ("Green used to be my favourite colour.", ("Ann", "LIKES", "Green", "end")),
    ("Adele isn't my favourite singer anymore.", ("Ann", "LIKES", "Adele", "end")),
    ("We gave our parrot Kiwi away.", ("Ann", "HAS_PET", "Kiwi", "end")),
    ("I'm off keto now.", ("Ann", "DIET", "keto", "end")),
    ("I don't play chess anymore.", ("Ann", "LIKES", "chess", "end")),
    ("I no longer paint.", ("Ann", "LIKES", "painting", "end")),
    ("I don't sing anymore.", ("Ann", "LIKES", "singing", "end")),
])
def test_an_ending_said_in_other_words(text, ended):
    assert ended in facts(text)


@pytest.mark.parametrize("text", [
    "I call Mum every Sunday.", "Tom let me go early today.", "I don't care anymore.", "I don't play chess.",
    "I no longer have the patience.", "I don't have a car.", "She isn't my favourite singer anymore.",
    "Adele isn't my favourite singer.", "If my bike was stolen I would cry.", "I swapped my old laptop for a new one.",
    "I don't know anymore.", "We left Google and moved to Seattle.",
])
def test_a_look_alike_ends_nothing_it_cannot_be_sure_of(text):
    assert [f for f in facts(text) if f[-1] == "end"] == []


@pytest.mark.parametrize("text,ending,new", [
    ("We moved from Leeds to York.", ("Ann", "LIVES_IN", "Leeds", "end"), ("Ann", "LIVES_IN", "York")),
    ("I broke up with Ethan and now I'm dating Oliver.", ("Ann", "PARTNER_OF", "Ethan", "end"),
     ("Ann", "PARTNER_OF", "Oliver")),
    ("Green used to be my favourite colour, but my favourite colour is blue now.",
     ("Ann", "LIKES", "Green", "end"), ("Ann", "LIKES", "blue")),
])
def test_an_ending_comes_before_the_new_value_so_it_still_finds_the_open_fact(text, ending, new):
    got = facts(text)
    assert got.index(ending) < got.index(new)


def test_a_date_said_for_leaving_is_not_the_start_of_the_next_job():
    [x] = RuleExtractor().extract([TurnContext(
        text="I left St. Mary's Hospital in March and now I work at Royal Free Hospital.", speaker="Ann",
        session_time=SESSION)])
    start = {f.object: f.valid_at or f.invalid_at for f in x.facts if f.predicate == "WORKS_AT"}
    assert start["St. Mary's Hospital"].month == 3 and start["Royal Free Hospital"] == SESSION
