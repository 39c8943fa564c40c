"""The eighth extraction round (issue 12): general constructions behind the misses of the sixth
holdout, each with sentences it must read and look-alikes it must leave alone. The sentences are
not those of the timeline sets."""

from __future__ import annotations

import pytest
from rule_reading import endings, extracted, states


@pytest.mark.parametrize("text,fact", [
    # homes: more names for a dwelling, where in the town before the town
    ("We've just moved into a little semi in Derby and the neighbours are lovely.", ("LIVES_IN", "Derby")),
    ("Last year we moved into a brownstone in Brooklyn.", ("LIVES_IN", "Brooklyn")),
    ("I live two streets from the seafront in Hove, so parking is a nightmare.", ("LIVES_IN", "Hove")),
    ("I live just off Princes Street in Edinburgh.", ("LIVES_IN", "Edinburgh")),
    ("Moving to Porto has been great for my Portuguese.", ("LIVES_IN", "Porto")),
    # jobs said by what surrounds them
    ("Appraisal season at Harrowgate Logistics again.", ("WORKS_AT", "Harrowgate Logistics")),
    ("Two months into my new role at Brightline Energy and I finally know where the printer is.",
     ("WORKS_AT", "Brightline Energy")),
    ("I've been teaching at Fernbrook Academy for nine years.", ("WORKS_AT", "Fernbrook Academy")),
    ("I'm bartending at the Red Lion most nights.", ("WORKS_AT", "Red Lion")),
    ("I started roasting for Northbound Coffee in May.", ("WORKS_AT", "Northbound Coffee")),
    # schools
    ("Six weeks into my masters at Aston University, and I'm drowning in reading.", ("STUDIES_AT", "Aston University")),
    ("My first-year chemistry marks are awful. Everyone else at Keele seems to cope fine.", ("STUDIES_AT", "Keele")),
    ("The other nurses at Riverside Clinic are lovely.", ("WORKS_AT", "Riverside Clinic")),
    ("Switching to Dalhousie University was the best decision I made this year.", ("STUDIES_AT", "Dalhousie University")),
    ("Transferring to U of M was the right move for my engineering degree.", ("STUDIES_AT", "U of M")),
    # diets, things
    ("Day three of going vegan and I miss cheese.", ("DIET", "vegan")),
    ("Ten days into keto, is the brain fog normal?", ("DIET", "keto")),
    ("We put the money toward a Nikon Z6 in the end.", ("OWNS", "Nikon Z6")),
    ("I'm filming my cousin's graduation on my GoPro Hero next week.", ("OWNS", "GoPro Hero")),
    ("Traded the Corolla in for a Kia Niro last month.", ("OWNS", "Kia Niro")),
    # presupposed in passing
    ("As a paramedic at Northgate Ambulance Service, I see this a lot.", ("WORKS_AT", "Northgate Ambulance Service")),
    ("As a second-year at Bangor University, what modules should I pick?", ("STUDIES_AT", "Bangor University")),
    ("What should I wear to my first pottery class?", ("LIKES", "pottery")),
    ("Our Tuesday running club is doing a 10k.", ("LIKES", "running")),
    ("Since going vegan I sleep so much better.", ("DIET", "vegan")),
    ("Biscuit, our beagle, keeps eating grass.", ("HAS_PET", "Biscuit")),
    ("Is my cat (Mochi) too thin?", ("HAS_PET", "Mochi")),
    ("My favourite author, Ali Smith, has a new book out.", ("LIKES", "Ali Smith")),
    ("We saw Wet Leg (my favourite band) last night.", ("LIKES", "Wet Leg")),
    ("Any snacks that fit my keto diet?", ("DIET", "keto")),
    ("I had a letter from the council in Leith, where I live, about the bins.", ("LIVES_IN", "Leith")),
    # a new pastime said after the old one's end
    ("Haven't touched my chess set since spring, it's all pottery now.", ("LIKES", "pottery")),
])
def test_a_general_construction_is_read(text, fact):
    assert fact in states(text)


@pytest.mark.parametrize("text,predicate", [
    ("We moved into a new office in Leeds last week.", "LIVES_IN"),  # no dwelling
    ("I live off takeaways in London.", "LIVES_IN"),  # "off" before no name says what one eats
    ("I'd live near the coast in Cornwall if I could.", "LIVES_IN"),  # a wish
    ("Moving to Lisbon would be a dream.", "LIVES_IN"),  # not done
    ("Moving to Lisbon was the plan, but it fell through.", "LIVES_IN"),
    ("Tourist season at Disneyland is madness.", "WORKS_AT"),  # no staff event
    ("Layoff season at Meta again, apparently.", "WORKS_AT"),  # news anyone reads
    ("Three weeks into his new job at Arbour Bank, my brother quit.", "WORKS_AT"),  # someone else's
    ("I've been swimming at Ponds Forge for years.", "WORKS_AT"),  # a pastime at a place
    ("Everyone else at Glastonbury was soaked.", "WORKS_AT"),  # no school or work words
    ("Everyone else at Glastonbury was soaked.", "STUDIES_AT"),
    ("Everyone else at Nando's was eating, and my boss paid.", "WORKS_AT"),  # customers
    ("First day at Legoland done!", "WORKS_AT"),  # a day out
    ("Day two of the vegan festival and my feet hurt.", "DIET"),  # an outing
    ("We put the money toward a holiday in Crete.", "OWNS"),  # no make named
    ("Haven't touched a drop since New Year, it's all mocktails now.", "LIKES"),  # no pastime ended
    ("I worked as a chef at Copperfield Hotel for years.", "WORKS_AT"),  # a past role
    ("She joined as a nurse at Riverside Clinic.", "WORKS_AT"),  # someone else's
    ("My son's swimming lessons start on Monday.", "LIKES"),  # someone else's pastime
    ("Our football team lost again.", "LIKES"),  # a team one supports
    ("Since going to Spain I miss the bread.", "DIET"),
    ("Sarah, my cat is sick again.", "HAS_PET"),  # a name addressed, no aside
    ("My favourite part, Act Two, dragged a bit.", "LIKES"),  # a reaction, no preference
    ("My vegan friend is coming for dinner.", "DIET"),  # someone else's diet
    ("I posted in my vegan diet group about tofu.", "DIET"),  # a group, not the diet
    ("We stayed in Leith, where my sister lives.", "LIVES_IN"),
])
def test_a_look_alike_is_left_alone(text, predicate):
    assert not any(p == predicate for p, _ in states(text))


def test_a_trade_done_for_a_firm_is_no_pastime():
    assert not any(p == "STARTED" for p, _ in states("I started roasting for Northbound Coffee in May."))


@pytest.mark.parametrize("text,ended", [
    ("Handed back my lanyard on Friday, and honestly I feel lighter.", ("WORKS_AT", "job")),
    ("I hung up my apron for good in March.", ("WORKS_AT", "job")),
    ("Things with Marco petered out over the summer.", ("PARTNER_OF", "Marco")),
    ("Priya and I drifted apart last year.", ("PARTNER_OF", "Priya")),
    ("We lost Mabel to cancer in March.", ("HAS_PET", "Mabel")),
    ("The divorce came through in May. Now I finally get the whole bed to myself.", ("PARTNER_OF", "partner")),
    ("Sold the Kindle over the weekend.", ("OWNS", "Kindle")),
    ("Traded the Corolla in for a Kia Niro last month.", ("OWNS", "Corolla")),
    ("Haven't touched my chess set since spring, it's all pottery now.", ("LIKES", "chess")),
    ("I haven't picked up a chessboard in months.", ("LIKES", "chess")),
    # endings with no value: the one open fact of the slot
    ("I'm not working at the moment, so money's tight.", ("WORKS_AT", "job")),
    ("I'm no longer a student, which is weird.", ("STUDIES_AT", "studies")),
    ("I'm not seeing anyone at the moment.", ("PARTNER_OF", "partner")),
    ("These days I just eat normally.", ("DIET", "diet")),
])
def test_an_ending_is_read(text, ended):
    assert ended in endings(text)


@pytest.mark.parametrize("text", [
    "I handed back my badge after the conference.",  # a visit
    "I was fired up for the match.",  # no dismissal
    "Things with Acme are going great.",
    "My sister split from Tom. The divorce came through in May.",  # hers
    "I handed in my essay at the end of term.",
    "I'm not working today, it's my day off.",
    "I'm not a student, I'm a teacher.",
    "I eat everything on my plate.",
])
def test_an_ending_look_alike_ends_nothing(text):
    assert not {e for e in endings(text) if e[0] in ("WORKS_AT", "PARTNER_OF", "HAS_PET", "MARRIED_TO", "STUDIES_AT", "DIET")}


def test_a_death_by_its_cause_needs_a_cause():
    assert ("PARTNER_OF", "Jenna") not in endings("We lost Jenna to Google last spring.")  # a colleague poached
    assert ("PARTNER_OF", "Jenna") in endings("We lost Jenna to a long illness last spring.")


def test_a_favourite_writer_and_author_are_one_slot():
    writer = extracted("Ursula Le Guin is hands down my favourite writer.")
    author = extracted("Now Ali Smith is easily my favourite author.")
    assert {f.slot for f in writer if f.predicate == "LIKES"} == {f.slot for f in author if f.predicate == "LIKES"} == {
        "FAVORITE:author"}
