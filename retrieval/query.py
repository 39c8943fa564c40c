"""Query analysis: what time the question is about, in which mode, naming whom.

Pure functions. Modes:
- ``as_of``: the caller gave ``as_of``, or the question names a time ("in
  April", "two years ago", "in 2019"): facts true during that range;
- ``historical``: the question asks about the past without a date ("before",
  "used to", "previously", "first", "when did"): superseded and ended facts
  are wanted beside current ones;
- ``current``: everything else: facts true now.
Relative expressions resolve against ``now`` (never the wall clock when
``now`` is given).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from graphmem.parsing.dates import find_time_spans, resolve_in_text
from graphmem.schema.models import normalize_name

Mode = Literal["current", "historical", "as_of"]

HISTORICAL = re.compile(
    r"\b(before|used to|previous(ly)?|formerly|former|first|originally|earlier|in the past|"
    r"when did|when was|prior|old|ever|history|anymore|no longer|changed?)\b",
    re.I,
)
FIRST_PERSON = re.compile(r"\b(i|me|my|mine|myself|i'm|i've|i'd)\b", re.I)


class QueryPlan(BaseModel):
    """The parsed question."""

    model_config = ConfigDict(frozen=True)

    text: str
    mode: Mode
    range_start: datetime | None = None
    range_end: datetime | None = None
    entity_keys: tuple[str, ...] = ()
    first_person: bool = False
    time_words: tuple[str, ...] = ()


def analyze(text: str, now: datetime, as_of: datetime | None = None, entity_keys: Iterable[str] = ()) -> QueryPlan:
    """Parse `text` against `now`; `entity_keys` are the graph's normalised entity names."""
    spans = find_time_spans(text)
    named = resolve_in_text(text, now) if spans else None
    if as_of is not None:
        mode: Mode = "as_of"
        start, end = as_of, None
    elif named is not None:
        mode, start, end = "as_of", named.start, named.end
    elif HISTORICAL.search(text):
        mode, start, end = "historical", None, None
    else:
        mode, start, end = "current", None, None
    return QueryPlan(
        text=text,
        mode=mode,
        range_start=start,
        range_end=end,
        entity_keys=tuple(named_entities(text, entity_keys)),
        first_person=bool(FIRST_PERSON.search(text)),
        time_words=tuple(s.expression for s in spans),
    )


def named_entities(text: str, entity_keys: Iterable[str]) -> list[str]:
    """Entity names that occur in the question as whole words, longest first."""
    haystack = f" {normalize_name(re.sub(r'[^\w\s-]', ' ', text))} "
    found = [key for key in entity_keys if len(key) >= 2 and f" {key} " in haystack]
    return sorted(found, key=len, reverse=True)
