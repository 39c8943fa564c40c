"""Three speed-ups of the offline rules must read exactly what the slower code read:
- `grammar.NAME` looks at the first letter before trying the stop-name lookahead;
- `text._continues` searches the end of a sentence only, not the whole of it;
- `entities._capital_runs` skips the words that neither start nor extend a run.
Each is checked against the code it replaced, on text built from the pieces each one
decides on (titles, initials, company suffixes, stop names, capitals, "of the")."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.ingest.rules import entities, grammar, text
from graphmem.ingest.rules.grammar import STOP_NAMES

OLD_NAME = rf"(?-i:{grammar.NOT_STOP}{grammar._CAP}(?:[ ]{grammar.NOT_STOP}{grammar._CAP})?)"


def old_continues(prev: str, piece: str) -> bool:
    """`split_sentences`' join test as it was: every pattern searched over all of `prev`."""
    return bool(text.TITLE_END.search(prev) or (
        text.MIDDLE_INITIAL.search(prev) and piece[:1].isupper() and piece.split()[0].lower() not in STOP_NAMES) or (
        text.SOFT_END.search(prev) and text.STARTS_LOWER.match(piece)) or text._MODIFIER_INITIALS.search(prev) and (
        piece.split()[0].lower() not in STOP_NAMES))


def old_capital_runs(sentence: str) -> list[tuple[str, bool]]:
    """`_capital_runs` as it was, every word through the whole test."""
    tokens = list(entities.WORD.finditer(sentence))
    runs: list[tuple[str, bool]] = []
    current: list[str] = []
    opens, prev_end = False, 0
    for i, m in enumerate(tokens):
        word = entities._bare(m[0])
        gap = sentence[prev_end:m.start()]
        adjacent = bool(current) and gap.isspace()
        if entities._is_capital(word) and adjacent:
            current.append(word)
        elif current and entities._is_capital(word) and gap.strip() == "&" and len(gap) <= 3:
            current += ["&", word]
        elif adjacent and word in ("of", "de", "the") and entities._joins(sentence, tokens, i):
            current.append(word)
        else:
            if current:
                runs.append((" ".join(current), opens))
            current = [word] if entities._is_capital(word) else []
            opens = i == 0
        prev_end = m.end()
    if current:
        runs.append((" ".join(current), opens))
    return runs


_PIECES = ["Dr.", "St.", "Mt.", "approx.", "e.g.", "No.", "U.S.", "U.K.", "A.", "R.", "B. C.", "Co", "Co.", "Inc.",
           "Corp", "etc.", "the", "of", "of the", "de", "&", "Mary", "George", "Le Guin", "New York", "Bank",
           "Yesterday", "I", "I'm", "we", "my", "'s", "it's", "running", "in", "x", "é", "Élodie", "ϒ", " ", "  ",
           ".", "!", "?", ",", "\n", "(", "\"", "'", "-", "3", "O'Neil", "Smith-Jones", "MARY", "iPhone"]
TEXTS = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=4)), max_size=16).map(" ".join)
RAW = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=4)), max_size=16).map("".join)


@settings(max_examples=600, deadline=None)
@given(st.one_of(TEXTS, RAW))
def test_the_guarded_name_pattern_matches_where_the_old_one_did(sentence):
    for flags in (0, re.IGNORECASE):
        old, new = re.compile(OLD_NAME, flags), re.compile(grammar.NAME, flags)
        assert [(m.span(), m[0]) for m in new.finditer(sentence)] == [(m.span(), m[0]) for m in old.finditer(sentence)]


@settings(max_examples=600, deadline=None)
@given(st.one_of(TEXTS, RAW), st.one_of(TEXTS, RAW).filter(str.strip))
def test_a_sentence_continues_exactly_when_it_did(prev, piece):
    piece = piece.strip()
    assert text._continues(prev, piece) == old_continues(prev, piece)


@settings(max_examples=600, deadline=None)
@given(st.one_of(TEXTS, RAW))
def test_capital_runs_are_the_runs_they_were(sentence):
    assert entities._capital_runs(sentence) == old_capital_runs(sentence)


def test_the_cases_each_speed_up_decides():
    assert text.split_sentences("I saw Dr. Reyes. Then the U.S. office called. We met George R. R. Martin.") == [
        "I saw Dr. Reyes.", "Then the U.S. office called.", "We met George R. R. Martin."]
    assert text.split_sentences("It was approx. ten. He joined A.B. partners.") == [
        "It was approx. ten.", "He joined A.B. partners."]
    assert entities._capital_runs("we love the Bank of America and New York") == [("Bank of America", False),
                                                                                   ("New York", False)]
    assert [m[0] for m in re.finditer(grammar.NAME, "yesterday Yesterday Anna met Bob Lee")] == ["Anna", "Bob Lee"]


def test_rule_patterns_compile_on_first_use_and_once_for_every_thread():
    from concurrent.futures import ThreadPoolExecutor

    trigger = grammar.rule(r"\bmoved\s+to\b", ("moved",))
    assert trigger._compiled is None
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: trigger.pattern, range(64)))
    assert all(p is got[0] for p in got) and got[0].flags & re.IGNORECASE  # `m.re is RULE.pattern` holds
    assert [m[0] for m in trigger.pattern.finditer("We MOVED TO Oslo")] == ["MOVED TO"]
    pattern, keywords = trigger
    assert pattern is got[0] and keywords == ("moved",)


def test_importing_the_rules_compiles_none_of_them_and_a_turn_only_what_its_keywords_let_through():
    import subprocess
    import sys

    script = (
        "from datetime import datetime, UTC\n"
        "from graphmem.ingest.extraction import TurnContext\n"
        "from graphmem.ingest.rules.extractor import HANDLERS, extract_turn\n"
        "compiled = lambda: sum(r.trigger._compiled is not None for r in HANDLERS)\n"
        "before = compiled()\n"
        "x = extract_turn(TurnContext(text='I moved to Lisbon last week.', speaker='Ann',"
        " session_time=datetime(2024, 3, 1, tzinfo=UTC)))\n"
        "print(before, compiled(), len(HANDLERS), [f.predicate for f in x.facts])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split(" ", 3)
    before, after, total, predicates = int(out[0]), int(out[1]), int(out[2]), out[3]
    assert before == 0 and 0 < after < total / 4, out
    assert "MOVED_TO" in predicates and "LIVES_IN" in predicates


def test_every_rule_pattern_compiles():
    """Compiling on first use moves a broken pattern's error from import to the first sentence
    that passes its keywords; here every pattern compiles, the rare ones included."""
    from graphmem.ingest.rules import pets
    from graphmem.ingest.rules.extractor import HANDLERS, QUESTION_HANDLERS, RuleExtractor

    listed = {id(r.trigger) for rules in (HANDLERS, QUESTION_HANDLERS) for r in rules}
    assert listed <= {id(t) for t in grammar.MADE} and id(pets.PET_PRONOUN_NAME) in {id(t) for t in grammar.MADE}
    RuleExtractor(learned=False).warm()
    assert len(grammar.MADE) > 200 and all(isinstance(t._compiled, re.Pattern) for t in grammar.MADE)
