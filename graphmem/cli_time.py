"""The one date parser behind every CLI time option (--now, --valid-at,
--known-at, --between).

It accepts what the library and its loaders accept, so a date copied out of a
dataset works on the command line: ISO-8601 (`schema.time.to_utc`; naive is
UTC), LongMemEval's `2023/05/20 (Sat) 02:21` and LoCoMo's `1:56 pm on 8 May,
2023` (the loaders' own parsers).
"""

from __future__ import annotations

from datetime import datetime

from graphmem.schema.errors import InvalidInput

FORMATS_TEXT = ("ISO-8601 (2024-05-01, 2024-05-01T09:30:00+02:00), LongMemEval (2023/05/20 (Sat) 02:21) "
                "or LoCoMo (1:56 pm on 8 May, 2023)")


def parse_time(value: str, option: str = "time") -> datetime:
    """`value` as an aware UTC datetime, whichever supported format it is in.

    Example:
        >>> parse_time("2023/05/20 (Sat) 02:21").isoformat()
        '2023-05-20T02:21:00+00:00'
    """
    from graphmem.ingest.loaders import parse_locomo_time, parse_longmemeval_time
    from graphmem.schema.time import to_utc

    text = value.strip()
    for parse in (lambda s: to_utc(s, field=option), parse_longmemeval_time, parse_locomo_time):
        try:
            return parse(text)
        except InvalidInput:
            continue
    raise InvalidInput(f"{option}: {value!r} is not a date; use {FORMATS_TEXT}")


def parse_between(value: str, option: str = "--between") -> tuple[datetime, datetime]:
    """`T0..T1` as a (start, end) pair with start < end.

    One value with `..` rather than two: a two-value option silently took the
    next flag (`--dry-run`) as its second date.

    Example:
        >>> [t.date().isoformat() for t in parse_between("2024-05-01..2024-06-01")]
        ['2024-05-01', '2024-06-01']
    """
    parts = value.split("..")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise InvalidInput(f"{option} takes two dates joined by '..' (2024-05-01..2024-06-01), got {value!r}")
    start, end = (parse_time(p, option) for p in parts)
    if end <= start:
        raise InvalidInput(f"{option}: the end {parts[1].strip()!r} must be later than the start {parts[0].strip()!r}")
    return start, end
