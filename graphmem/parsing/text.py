"""What text graphmem accepts: one rule for every string a caller hands in.

- It must be a ``str``; anything else is `InvalidInput` naming the field.
- Lone surrogates (U+D800-U+DFFF, e.g. left by decoding bytes with
  ``surrogateescape``) are refused: such a string is not Unicode text, cannot
  be encoded as UTF-8 for the store or the embedder, and any repair would guess
  at what the caller meant.
- Free text (turn content, fact sentences, queries, text selectors): NUL and the
  other control characters except tab, line feed and carriage return are
  removed. They carry nothing a memory needs, NUL would cut a FalkorDB string
  short, and refusing a whole conversation for one escape code pasted from a
  terminal helps nobody.
- Names (speakers, subjects and objects, entity names): control characters
  other than tab and line breaks are refused, and a name is never altered
  inside: it is what the caller will look the entity up by.
- Ids (turn, session, fact): any control character, line breaks included, is
  refused; an id must round-trip exactly, so it is never altered at all.
- Free text and names are stripped of surrounding white space (turn content is
  not: its hash names the stored turn); ids are kept as given. Empty, or longer
  than the field's limit: refused.

Checks run before anything is written, so a refusal loses nothing.
"""

from __future__ import annotations

import re

from graphmem.schema.errors import InvalidInput

_DROPPED_IN_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_REFUSED_IN_NAMES = _DROPPED_IN_TEXT
_REFUSED_IN_IDS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def surrogate_at(value: str) -> int | None:
    """Index of the first lone surrogate in `value`, or None when it has none."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def _checked(value: object, field: str, limit: int) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string, got {type(value).__name__}")
    if len(value) > limit:
        raise InvalidInput(f"{field} is {len(value):,} characters; the limit is {limit:,}")
    where = surrogate_at(value)
    if where is not None:
        raise InvalidInput(
            f"{field} holds a lone surrogate (U+{ord(value[where]):04X}) at character {where}: not valid Unicode text"
        )
    return value


def clean_text(value: object, field: str, limit: int, *, strip: bool = True) -> str:
    """Free text with control characters other than tab and line breaks removed.

    Stripped of surrounding white space unless `strip` is False (turn content
    keeps it: its hash names the stored turn).

    Example:
        >>> clean_text(" I like\\x00 tea. ", "query", 100)
        'I like tea.'
    """
    text = _DROPPED_IN_TEXT.sub("", _checked(value, field, limit))
    if not text.strip():
        raise InvalidInput(f"{field} must be a non-empty string")
    return text.strip() if strip else text


def check_name(value: object, field: str, limit: int) -> str:
    """A name, stripped; control characters other than tab and line breaks are refused.

    Example:
        >>> check_name(" Lily ", "subject", 100)
        'Lily'
    """
    name = _checked(value, field, limit).strip()
    if not name:
        raise InvalidInput(f"{field} must be a non-empty string")
    _refuse(_REFUSED_IN_NAMES, name, field)
    return name


def check_id(value: object, field: str, limit: int) -> str:
    """An identifier, exactly as given; empty or with control characters is refused."""
    ident = _checked(value, field, limit)
    if not ident:
        raise InvalidInput(f"{field} must be a non-empty string")
    _refuse(_REFUSED_IN_IDS, ident, field)
    return ident


def _refuse(pattern: re.Pattern[str], value: str, field: str) -> None:
    found = pattern.search(value)
    if found:
        raise InvalidInput(f"{field} holds control character U+{ord(found.group()):04X} at character {found.start()}")
