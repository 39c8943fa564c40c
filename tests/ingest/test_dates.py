"""Time expressions: finding them in text, resolving them against a fixed reference."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from graphmem.schema.errors import InvalidInput
from graphmem.parsing.dates import TimeRange, find_time_expressions, find_time_spans, resolve, resolve_in_text

REF = datetime(2024, 7, 15, 10, 0, tzinfo=UTC)  # a Monday


def span_of(expression: str, reference: datetime = REF, prefer: str = "past") -> tuple:
    found = resolve(expression, reference, prefer)
    assert found is not None, expression
    return (found.start.date(), found.end.date() if found.end else None, found.granularity, found.open_ended)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("yesterday", (date(2024, 7, 14), date(2024, 7, 15), "day", False)),
        ("today", (date(2024, 7, 15), date(2024, 7, 16), "day", False)),
        ("tomorrow", (date(2024, 7, 16), date(2024, 7, 17), "day", False)),
        ("last night", (date(2024, 7, 14), date(2024, 7, 15), "day", False)),
        ("the day before yesterday", (date(2024, 7, 13), date(2024, 7, 14), "day", False)),
        ("last week", (date(2024, 7, 8), date(2024, 7, 15), "week", False)),
        ("this week", (date(2024, 7, 15), date(2024, 7, 22), "week", False)),
        ("next week", (date(2024, 7, 22), date(2024, 7, 29), "week", False)),
        ("last month", (date(2024, 6, 1), date(2024, 7, 1), "month", False)),
        ("next month", (date(2024, 8, 1), date(2024, 9, 1), "month", False)),
        ("last year", (date(2023, 1, 1), date(2024, 1, 1), "year", False)),
        ("this year", (date(2024, 1, 1), date(2025, 1, 1), "year", False)),
        ("next Friday", (date(2024, 7, 19), date(2024, 7, 20), "day", False)),
        ("last Friday", (date(2024, 7, 12), date(2024, 7, 13), "day", False)),
        ("on Friday", (date(2024, 7, 12), date(2024, 7, 13), "day", False)),
        ("this Friday", (date(2024, 7, 19), date(2024, 7, 20), "day", False)),
        ("last Monday", (date(2024, 7, 8), date(2024, 7, 9), "day", False)),
        ("last weekend", (date(2024, 7, 13), date(2024, 7, 15), "day", False)),
        ("in March", (date(2024, 3, 1), date(2024, 4, 1), "month", False)),
        ("in September", (date(2023, 9, 1), date(2023, 10, 1), "month", False)),
        ("in July", (date(2024, 7, 1), date(2024, 8, 1), "month", False)),
        ("last July", (date(2023, 7, 1), date(2023, 8, 1), "month", False)),
        ("in March 2023", (date(2023, 3, 1), date(2023, 4, 1), "month", False)),
        ("March 5", (date(2024, 3, 5), date(2024, 3, 6), "day", False)),
        ("December 25", (date(2023, 12, 25), date(2023, 12, 26), "day", False)),
        ("5 March 2023", (date(2023, 3, 5), date(2023, 3, 6), "day", False)),
        ("March 5th, 2023", (date(2023, 3, 5), date(2023, 3, 6), "day", False)),
        ("the 5th of March", (date(2024, 3, 5), date(2024, 3, 6), "day", False)),
        ("2023-03-05", (date(2023, 3, 5), date(2023, 3, 6), "day", False)),
        ("two years ago", (date(2022, 1, 1), date(2023, 1, 1), "year", False)),
        ("3 days ago", (date(2024, 7, 12), date(2024, 7, 13), "day", False)),
        ("three days ago", (date(2024, 7, 12), date(2024, 7, 13), "day", False)),
        ("a month ago", (date(2024, 6, 1), date(2024, 7, 1), "month", False)),
        ("a week ago", (date(2024, 7, 8), date(2024, 7, 15), "week", False)),
        ("a couple of days ago", (date(2024, 7, 13), date(2024, 7, 14), "day", False)),
        ("since 2019", (date(2019, 1, 1), None, "year", True)),
        ("since March", (date(2024, 3, 1), None, "month", True)),
        ("since last year", (date(2023, 1, 1), None, "year", True)),
        ("in 2019", (date(2019, 1, 1), date(2020, 1, 1), "year", False)),
        ("back in 2019", (date(2019, 1, 1), date(2020, 1, 1), "year", False)),
        ("two weeks from now", (date(2024, 7, 29), date(2024, 8, 5), "week", False)),
        ("in two weeks", (date(2024, 7, 29), date(2024, 8, 5), "week", False)),
        ("in 3 days", (date(2024, 7, 18), date(2024, 7, 19), "day", False)),
        ("in a year", (date(2025, 1, 1), date(2026, 1, 1), "year", False)),
    ],
)
def test_resolves_against_the_reference(expression, expected):
    assert span_of(expression) == expected


@pytest.mark.parametrize(
    ("expression", "start"),
    [
        ("in March", date(2025, 3, 1)),  # the next March, not the last one
        ("on Friday", date(2024, 7, 19)),
        ("March 5", date(2025, 3, 5)),
        ("in July", date(2024, 7, 1)),  # the current month is not yet over
        ("July 15", date(2024, 7, 15)),  # today, not a year from now
        ("the weekend", date(2024, 7, 20)),
    ],
)
def test_prefer_future_picks_the_next_occurrence(expression, start):
    assert resolve(expression, REF, prefer="future").start.date() == start


def test_a_month_at_the_reference_is_the_current_one_and_last_means_the_one_before():
    march = datetime(2024, 3, 10, tzinfo=UTC)
    assert span_of("in March", march)[0] == date(2024, 3, 1)
    assert span_of("last March", march)[0] == date(2023, 3, 1)
    assert span_of("next March", march)[0] == date(2025, 3, 1)


def test_resolution_follows_the_reference_never_the_wall_clock():
    old = datetime(1999, 12, 31, 23, 0, tzinfo=UTC)
    assert span_of("yesterday", old)[0] == date(1999, 12, 30)
    assert span_of("next month", old)[0] == date(2000, 1, 1)
    assert span_of("March 5", old)[0] == date(1999, 3, 5)


def test_weekday_on_the_same_weekday_is_a_week_away():
    friday = datetime(2024, 7, 19, 9, tzinfo=UTC)
    assert span_of("last Friday", friday)[0] == date(2024, 7, 12)
    assert span_of("next Friday", friday)[0] == date(2024, 7, 26)


def test_reference_in_another_timezone_is_converted_to_utc():
    shanghai_morning = datetime(2024, 7, 15, 2, 0, tzinfo=timezone(timedelta(hours=8)))  # 2024-07-14 18:00 UTC
    found = resolve("yesterday", shanghai_morning)
    assert found.start == datetime(2024, 7, 13, tzinfo=UTC)
    assert found.start.tzinfo == UTC


def test_ranges_are_aware_utc_and_end_after_start():
    for expression in ["yesterday", "last week", "in March", "two years ago", "next Friday", "since 2019"]:
        found = resolve(expression, REF)
        assert found.start.utcoffset() == timedelta(0)
        assert found.end is None or (found.end.utcoffset() == timedelta(0) and found.end > found.start)


def test_matching_is_case_and_space_insensitive():
    assert resolve("  Last   WEEK ", REF) == resolve("last week", REF)


@pytest.mark.parametrize("expression", ["the other day", "someday", "recently", "", "February 30", "in 2 fortnights"])
def test_unresolvable_expressions_give_none(expression):
    assert resolve(expression, REF) is None


def test_time_range_is_frozen():
    found = resolve("yesterday", REF)
    with pytest.raises(ValidationError):
        found.start = REF  # type: ignore[misc]


@pytest.mark.parametrize(
    ("expression", "label"),
    [("yesterday", "14 July 2024"), ("last week", "the week of 8 July 2024"), ("last month", "June 2024"),
     ("two years ago", "2022"), ("last weekend", "the weekend of 13 July 2024")],
)
def test_labels_name_the_period(expression, label):
    assert resolve(expression, REF).label() == label


# -------------------------------------------------------------------- finding


def test_finds_expressions_in_order_as_written():
    text = ("Since 2019 I've lived here. Last Friday I went out, 3 days ago I cooked, "
            "on March 5th, 2023 we met, and in two weeks I'll fly. See you in May!")
    assert find_time_expressions(text) == [
        "Since 2019", "Last Friday", "3 days ago", "on March 5th, 2023", "in two weeks", "in May"]


def test_spans_point_into_the_text():
    text = "I moved to Shanghai last month and started work yesterday."
    for span in find_time_spans(text):
        assert text[span.start:span.end] == span.expression
    assert [s.expression for s in find_time_spans(text)] == ["last month", "yesterday"]


@pytest.mark.parametrize(
    "text",
    ["You may want to try it.", "I love Fridays.", "We march on.", "My number is 2023-ish", "I have 2 dogs.",
     "Nothing to see here.", "He scored 20 points in 2 games"],
)
def test_does_not_find_what_is_not_a_date(text):
    assert find_time_expressions(text) == []


def test_number_words_and_articles_are_found():
    assert find_time_expressions("two years ago, a month ago, a few weeks ago, twelve days ago, in an instant") == [
        "two years ago", "a month ago", "a few weeks ago", "twelve days ago"]


def test_resolve_in_text_takes_the_first_resolvable_expression():
    assert resolve_in_text("I moved to Shanghai last month.", REF).start == datetime(2024, 6, 1, tzinfo=UTC)
    assert resolve_in_text("Back in 2019, and then yesterday.", REF).granularity == "year"
    assert resolve_in_text("No dates in here at all.", REF) is None
    assert resolve_in_text("I'm going to Japan in March.", REF, prefer="future").start.year == 2025


# -------------------------------------------------------------------- errors


def test_naive_reference_is_rejected():
    with pytest.raises(InvalidInput, match="timezone-aware"):
        resolve("yesterday", datetime(2024, 7, 15))
    with pytest.raises(InvalidInput):
        resolve_in_text("yesterday", datetime(2024, 7, 15))


@pytest.mark.parametrize("bad", [None, 42, b"yesterday", ["yesterday"]])
def test_non_string_text_is_rejected(bad):
    with pytest.raises(InvalidInput):
        find_time_expressions(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        resolve(bad, REF)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        resolve_in_text(bad, REF)  # type: ignore[arg-type]


def test_bad_reference_and_prefer_are_rejected():
    with pytest.raises(InvalidInput):
        resolve("yesterday", "2024-07-15")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        resolve("yesterday", REF, prefer="sideways")  # type: ignore[arg-type]


def test_hostile_text_does_not_crash():
    hostile = ("'; MATCH (n) DETACH DELETE n // " * 300 + "yesterday \u202e\u0000 \U0001f600 " * 200 + "9" * 5000)
    assert len(find_time_expressions(hostile)) == 200
    assert resolve_in_text(hostile, REF).start.date() == date(2024, 7, 14)
    assert isinstance(resolve("x" * 20_000, REF), (TimeRange, type(None)))


@pytest.mark.parametrize("text, start, end, label", [
    ("I've been on it for the past three months.", date(2024, 4, 1), date(2024, 7, 16), "April 2024 to July 2024"),
    ("it rained over the last 2 weeks", date(2024, 7, 1), date(2024, 7, 16), "1 July 2024 to 15 July 2024"),
    ("in the last few years", date(2021, 1, 1), date(2024, 7, 16), "2021 to 2024"),
])
def test_the_past_n_periods_run_from_that_many_periods_back_to_today(text, start, end, label):
    found = resolve_in_text(text, REF)
    assert (found.start.date(), found.end.date(), found.label()) == (start, end, label)


@pytest.mark.parametrize("text, day", [
    ("We met on the tenth of June.", date(2024, 6, 10)),
    ("It was the twenty-first of May 2023", date(2023, 5, 21)),
    ("It opened May first", date(2024, 5, 1)),
    ("see you on the thirty first of december", date(2023, 12, 31)),
])
def test_day_ordinals_in_words_name_the_day(text, day):
    found = resolve_in_text(text, REF)
    assert (found.start.date(), found.granularity) == (day, "day")


@pytest.mark.parametrize("text", ["my first job", "the second time", "you may first want to rest", "a tenth of it"])
def test_an_ordinal_without_a_month_is_no_date(text):
    assert find_time_expressions(text) == []
