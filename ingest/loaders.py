"""Benchmark and conversation-file loaders: pure parsing, no graph I/O.

Three formats, each read from any path, unchanged from its official release:

- ``locomo``: LoCoMo's ``locomo10.json`` (snap-research/LoCoMo), a JSON list of
  conversations with ``session_N`` turn lists, ``session_N_date_time`` strings
  and a ``qa`` list -> :func:`load_locomo`.
- ``longmemeval``: LongMemEval's ``longmemeval_{s_cleaned,m_cleaned,oracle}.json``
  (xiaowu0162/LongMemEval), a JSON list of questions, each carrying its own
  haystack of sessions -> :func:`load_longmemeval`.
- ``jsonl``: graphmem's own file, one session per line
  ``{"session_id", "session_time", "turns": [{"speaker"|"role", "content", "id"?}]}``
  -> :func:`load_jsonl`.

:func:`detect_format` tells them apart by their content, :func:`load_any` loads
whichever it is. Every problem (missing file, unknown format, malformed record)
raises :class:`graphmem.schema.errors.InvalidInput` naming the path and what is wrong.

Each :class:`Session` feeds ``Memory.write`` directly::

    for conv in load_locomo("locomo10.json"):
        for session in conv.sessions:
            mem.write(conv.conversation_id, **session.write_args())
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from graphmem.ingest.turns import ROLES
from graphmem.schema.errors import InvalidInput
from graphmem.schema.time import UTC, to_utc

Format = Literal["locomo", "longmemeval", "jsonl"]
PathLike = str | os.PathLike[str]

PEEK_BYTES = 1 << 20
LOCOMO_KEYS = ("sample_id", "conversation", "qa", "event_summary", "observation", "session_summary", "speaker_a")
LONGMEMEVAL_KEYS = ("question_id", "question_type", "question_date", "haystack_sessions", "haystack_dates",
                    "haystack_session_ids", "answer_session_ids")
_KEY_RE = re.compile(r'(?<!\\)"(' + "|".join(LOCOMO_KEYS + LONGMEMEVAL_KEYS) + r')"\s*:')
_SESSION_KEY_RE = re.compile(r"session_(\d+)")
_LOCOMO_EVIDENCE_RE = re.compile(r"D:?(\d+):(\d+)")
_LOCOMO_TIME_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %d %B %Y",
                        "%I:%M %p on %B %d, %Y", "%I:%M%p on %d %B, %Y")
_LONGMEMEVAL_TIME_RE = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\([A-Za-z]{3}\))?\s*(\d{1,2}):(\d{2})")


# --------------------------------------------------------------------- models


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Turn(_Frozen):
    """One utterance; ``id`` is the dataset's own turn id (LoCoMo ``D3:7``)."""

    speaker: str
    content: str
    id: str


class Session(_Frozen):
    """A dated run of turns: one ``Memory.write`` call."""

    session_id: str
    session_time: datetime
    turns: tuple[Turn, ...]

    @field_validator("session_time")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return to_utc(value, field="session_time")

    def write_args(self) -> dict[str, Any]:
        """The keyword arguments of ``Memory.write`` for this session (all but user_id).

        Example:
            >>> s = Session(session_id="s1", session_time=datetime(2023, 5, 8, tzinfo=UTC),
            ...             turns=(Turn(speaker="Ann", content="Hi", id="s1:0"),))
            >>> s.write_args()["turns"]
            [{'speaker': 'Ann', 'content': 'Hi', 'id': 's1:0'}]
        """
        return {
            "turns": [{"speaker": t.speaker, "content": t.content, "id": t.id} for t in self.turns],
            "session_time": self.session_time,
            "session_id": self.session_id,
        }


class Question(_Frozen):
    """A benchmark question with its gold answer and evidence turn ids.

    ``category`` is LoCoMo's 1-5 or LongMemEval's ``question_type``. ``answer`` is
    None for LoCoMo category 5 (adversarial), whose misleading answer is kept in
    ``adversarial_answer``. ``question_time`` is when the question is asked.
    """

    question_id: str
    question: str
    answer: str | None
    category: str | int
    evidence: tuple[str, ...]
    question_time: datetime | None
    answer_session_ids: tuple[str, ...] = ()
    adversarial_answer: str | None = None

    @field_validator("question_time")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else to_utc(value, field="question_time")


class StatedFact(_Frozen):
    """A fact a dataset states in structured form beside its turns (the nested
    key-value task's pairs): imported with ``Memory.add_fact``, citing ``turn_id``."""

    subject: str
    predicate: str
    object: str
    fact: str
    turn_id: str


class Conversation(_Frozen):
    """One user's sessions and the questions asked about them; ``facts``: what the
    dataset also gives as structured facts (none for LoCoMo and LongMemEval)."""

    conversation_id: str
    speakers: tuple[str, ...]
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]
    facts: tuple[StatedFact, ...] = ()

    def turns_by_id(self) -> dict[str, Turn]:
        """Every turn of every session, keyed by turn id."""
        return {turn.id: turn for session in self.sessions for turn in session.turns}


# ---------------------------------------------------------------- file access


def _existing_file(path: PathLike) -> Path:
    p = Path(path)
    if not p.exists():
        raise InvalidInput(f"{p}: no such file")
    if not p.is_file():
        raise InvalidInput(f"{p}: not a regular file")
    return p


def _read_json_list(path: PathLike) -> tuple[Path, list[Any]]:
    """The top-level JSON list of a dataset file (plain ``json.load``: no streaming
    library is installed, so a 2.7 GB file is parsed whole)."""
    p = _existing_file(path)
    try:
        with p.open(encoding="utf-8-sig") as f:
            data = json.load(f)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{p}: not valid JSON ({exc})") from exc
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{p}: not UTF-8 text ({exc})") from exc
    if not isinstance(data, list):
        raise InvalidInput(f"{p}: expected a JSON list of records, got {type(data).__name__}")
    return p, data


def _convert_each(p: Path, records: list[Any], convert: Callable[[Path, int, Any], Conversation]) -> list[Conversation]:
    """Convert records in order, dropping each raw record once converted, so the
    raw JSON and the models are never both held in full."""
    out = []
    for i in range(len(records)):
        record, records[i] = records[i], None
        if not isinstance(record, dict):
            raise InvalidInput(f"{p}: record {i} is a {type(record).__name__}, expected an object")
        out.append(convert(p, i, record))
    return out


def _field(record: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in record:
        raise InvalidInput(f"{where}: missing {key!r}")
    value = record[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InvalidInput(f"{where}: {key!r} should be {expected}, got {type(value).__name__}")
    return value


def _build[M: BaseModel](model: type[M], where: str, **fields: Any) -> M:
    try:
        return model(**fields)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(f"{where}: {problems}") from exc


# ---------------------------------------------------------------------- dates


def parse_locomo_time(text: str) -> datetime:
    """A LoCoMo ``session_N_date_time`` ("1:56 pm on 8 May, 2023") as aware UTC.

    Strict ``strptime`` on the known layouts first (English month names, the
    default C locale); ``dateparser`` only as a fallback for stray variants. The
    dataset gives no zone, so the wall time is taken as UTC.

    Example:
        >>> parse_locomo_time("1:56 pm on 8 May, 2023").isoformat()
        '2023-05-08T13:56:00+00:00'
    """
    cleaned = " ".join(str(text).split())
    for layout in _LOCOMO_TIME_FORMATS:
        try:
            return datetime.strptime(cleaned, layout).replace(tzinfo=UTC)
        except ValueError:
            continue
    import dateparser  # slow to import; only stray layouts need it

    parsed = dateparser.parse(
        cleaned.replace(" on ", " "),
        languages=["en"],
        settings={"TIMEZONE": "UTC", "RETURN_AS_TIMEZONE_AWARE": True, "REQUIRE_PARTS": ["day", "month", "year"]},
    )
    if parsed is None:
        raise InvalidInput(f"unreadable LoCoMo date {text!r}")
    return parsed.astimezone(UTC)


def parse_longmemeval_time(text: str) -> datetime:
    """A LongMemEval date ("2023/05/20 (Sat) 02:21") as aware UTC.

    The weekday in brackets is ignored (it is implied by the date); no zone is
    given, so the wall time is taken as UTC.

    Example:
        >>> parse_longmemeval_time("2023/05/20 (Sat) 02:21").isoformat()
        '2023-05-20T02:21:00+00:00'
    """
    match = _LONGMEMEVAL_TIME_RE.fullmatch(str(text).strip())
    if match is None:
        raise InvalidInput(f"unreadable LongMemEval date {text!r} (expected like '2023/05/20 (Sat) 02:21')")
    year, month, day, hour, minute = map(int, match.groups())
    try:
        return datetime(year, month, day, hour, minute, tzinfo=UTC)
    except ValueError as exc:
        raise InvalidInput(f"impossible LongMemEval date {text!r}: {exc}") from exc


# --------------------------------------------------------------------- LoCoMo


def load_locomo(path: PathLike) -> list[Conversation]:
    """Load LoCoMo conversations (the official ``locomo10.json`` format).

    - Sessions are the ``session_N`` lists, in N order; ``session_id`` is
      ``"session_N"``. A ``session_N_date_time`` without its ``session_N`` (conv-26
      has 16) is ignored; an empty session is dropped.
    - Turn ids are the dataset's ``dia_id`` (``D3:7``). A turn with a
      ``blip_caption`` gets ``" [shares a photo: <caption>]"`` appended to its
      content, so the photo's subject is searchable text.
    - Questions: id ``"<sample_id>:q<index>"``; category 1-5; category 5
      (adversarial) has ``answer=None``. Evidence ids are normalised: a
      ``"D8:6; D9:17"`` entry splits in two, ``"D:11:26"`` reads ``D11:26``, a
      bare ``"D"`` is dropped; ids that name no turn are kept as given.
    - ``question_time`` is the time of the last session.

    Example:
        >>> convs = load_locomo("tests/data/locomo_dev7.json")
        >>> convs[0].speakers
        ('Caroline', 'Melanie')
    """
    p, records = _read_json_list(path)
    return _convert_each(p, records, _locomo_conversation)


def _locomo_conversation(p: Path, index: int, record: dict[str, Any]) -> Conversation:
    where = f"{p}: record {index}"
    conv_id = str(_field(record, "sample_id", (str, int), where))
    where = f"{p}: {conv_id}"
    body = _field(record, "conversation", dict, where)
    speakers = tuple(_field(body, key, str, f"{where}: conversation") for key in ("speaker_a", "speaker_b"))
    numbers = sorted(int(m[1]) for key in body if (m := _SESSION_KEY_RE.fullmatch(key)))
    sessions = [s for n in numbers if (s := _locomo_session(body, n, where)) is not None]
    if not sessions:
        raise InvalidInput(f"{where}: no non-empty session_N turn lists")
    question_time = sessions[-1].session_time
    qa = _field(record, "qa", list, where)
    questions = [_locomo_question(q, f"{conv_id}:q{i}", question_time, f"{where}: qa[{i}]") for i, q in enumerate(qa)]
    return _build(Conversation, where, conversation_id=conv_id, speakers=speakers,
                  sessions=tuple(sessions), questions=tuple(questions))


def _locomo_session(body: dict[str, Any], n: int, where: str) -> Session | None:
    """``session_n`` as a Session, or None when it has no turns."""
    where = f"{where}: session_{n}"
    raw_turns = _field(body, f"session_{n}", list, where)
    if not raw_turns:
        return None
    stamp = _field(body, f"session_{n}_date_time", str, where)
    try:
        session_time = parse_locomo_time(stamp)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from exc
    turns = []
    for i, raw in enumerate(raw_turns):
        turn_where = f"{where}[{i}]"
        if not isinstance(raw, dict):
            raise InvalidInput(f"{turn_where}: expected an object, got {type(raw).__name__}")
        content = _field(raw, "text", str, turn_where)
        caption = raw.get("blip_caption")
        if isinstance(caption, str) and caption.strip():
            content = f"{content} [shares a photo: {caption.strip()}]"
        turns.append(_build(Turn, turn_where, speaker=_field(raw, "speaker", str, turn_where),
                            content=content, id=_field(raw, "dia_id", str, turn_where)))
    return Session(session_id=f"session_{n}", session_time=session_time, turns=tuple(turns))


def _locomo_evidence(raw: list[Any]) -> tuple[str, ...]:
    ids: list[str] = []
    for entry in raw:
        for token in re.split(r"[;,\s]+", str(entry)):
            if (m := _LOCOMO_EVIDENCE_RE.fullmatch(token)) and (eid := f"D{int(m[1])}:{int(m[2])}") not in ids:
                ids.append(eid)
    return tuple(ids)


def _locomo_question(raw: Any, qid: str, question_time: datetime, where: str) -> Question:
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: expected an object, got {type(raw).__name__}")
    category = _field(raw, "category", int, where)
    answer = None if category == 5 or raw.get("answer") is None else str(raw["answer"])
    adversarial = raw.get("adversarial_answer")
    return _build(
        Question, where, question_id=qid, question=_field(raw, "question", str, where), answer=answer,
        category=category, evidence=_locomo_evidence(_field(raw, "evidence", list, where)),
        question_time=question_time, adversarial_answer=None if adversarial is None else str(adversarial),
    )


# ---------------------------------------------------------------- LongMemEval


def load_longmemeval(path: PathLike) -> list[Conversation]:
    """Load LongMemEval questions (official ``longmemeval_*.json`` format).

    One :class:`Conversation` per question: ``conversation_id`` = ``question_id``,
    speakers ``("user", "assistant")``, one session per haystack session in file
    order (not re-sorted: a few oracle haystacks are out of date order), with
    ``haystack_session_ids`` as session ids and turn ids ``"<session_id>:<i>"``
    (0-based). The single question's evidence is the ids of the turns marked
    ``has_answer: true``; ``question_time`` is ``question_date``; an integer
    answer becomes a string. Empty haystack sessions are dropped.

    No JSON streaming library (``ijson``) is installed, so the file is read with
    plain ``json.load``; raw records are released as they are converted, so the
    raw data and the models are not both held in full.

    Example:
        >>> convs = load_longmemeval("tests/data/longmemeval_oracle_sample99.json")
        >>> convs[0].speakers
        ('user', 'assistant')
    """
    p, records = _read_json_list(path)
    return _convert_each(p, records, _longmemeval_conversation)


def _longmemeval_conversation(p: Path, index: int, record: dict[str, Any]) -> Conversation:
    qid = str(_field(record, "question_id", (str, int), f"{p}: record {index}"))
    where = f"{p}: {qid}"
    raw_sessions = _field(record, "haystack_sessions", list, where)
    session_ids = _field(record, "haystack_session_ids", list, where)
    dates = _field(record, "haystack_dates", list, where)
    if not len(raw_sessions) == len(session_ids) == len(dates):
        raise InvalidInput(f"{where}: haystack_sessions ({len(raw_sessions)}), haystack_session_ids "
                           f"({len(session_ids)}) and haystack_dates ({len(dates)}) differ in length")
    sessions, evidence = [], []
    for sid, stamp, raw in zip(session_ids, dates, raw_sessions, strict=True):
        session, marked = _longmemeval_session(str(sid), stamp, raw, f"{where}: session {sid}")
        evidence.extend(marked)
        if session.turns:
            sessions.append(session)
    answer = _field(record, "answer", (str, int, float), where)
    question = _build(
        Question, where, question_id=qid, question=_field(record, "question", str, where), answer=str(answer),
        category=_field(record, "question_type", str, where), evidence=tuple(evidence),
        question_time=_parse(parse_longmemeval_time, _field(record, "question_date", str, where), where),
        answer_session_ids=tuple(str(s) for s in _field(record, "answer_session_ids", list, where)),
    )
    return _build(Conversation, where, conversation_id=qid, speakers=("user", "assistant"),
                  sessions=tuple(sessions), questions=(question,))


def _longmemeval_session(sid: str, stamp: Any, raw: Any, where: str) -> tuple[Session, list[str]]:
    if not isinstance(raw, list):
        raise InvalidInput(f"{where}: expected a list of turns, got {type(raw).__name__}")
    turns, marked = [], []
    for i, item in enumerate(raw):
        turn_where = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise InvalidInput(f"{turn_where}: expected an object, got {type(item).__name__}")
        turn = _build(Turn, turn_where, speaker=_field(item, "role", str, turn_where),
                      content=_field(item, "content", str, turn_where), id=f"{sid}:{i}")
        turns.append(turn)
        if item.get("has_answer") is True:
            marked.append(turn.id)
    session_time = _parse(parse_longmemeval_time, stamp, where)
    return Session(session_id=sid, session_time=session_time, turns=tuple(turns)), marked


def _parse(parser: Callable[[str], datetime], value: Any, where: str) -> datetime:
    if not isinstance(value, str):
        raise InvalidInput(f"{where}: date should be a string, got {type(value).__name__}")
    try:
        return parser(value)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from exc


# ---------------------------------------------------------------------- JSONL


def load_jsonl(path: PathLike) -> list[Session]:
    """Load graphmem's JSONL session file: one session object per line.

    Each line: ``{"session_id": str, "session_time": ISO-8601 (naive = UTC),
    "turns": [{"speaker" or "role": str, "content": str, "id"?: str}]}``. A turn
    without ``id`` gets ``"<session_id>:<index>"``. Blank lines are skipped; a
    malformed line raises InvalidInput naming its 1-based line number.

    Example:
        >>> [s.session_id for s in load_jsonl("tests/data/sample.jsonl")]
        ['s1', 's2', 's3']
    """
    p = _existing_file(path)
    sessions = []
    try:
        with p.open(encoding="utf-8-sig") as f:
            for lineno, line in enumerate(f, start=1):
                if line.strip():
                    sessions.append(_jsonl_session(line, f"{p}: line {lineno}"))
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{p}: not UTF-8 text ({exc})") from exc
    return sessions


def _jsonl_session(line: str, where: str) -> Session:
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: expected a JSON object, got {type(raw).__name__}")
    sid = _field(raw, "session_id", str, where)
    when = _field(raw, "session_time", str, where)
    try:
        session_time = to_utc(when, field="session_time")
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from exc
    turns = []
    for i, item in enumerate(_field(raw, "turns", list, where)):
        turn_where = f"{where}: turns[{i}]"
        if not isinstance(item, dict):
            raise InvalidInput(f"{turn_where}: expected an object, got {type(item).__name__}")
        speaker_key = "speaker" if "speaker" in item else "role"
        speaker = _field(item, speaker_key, str, turn_where)
        if speaker_key == "role" and speaker not in ROLES:  # as `Memory.write` and the service refuse it
            raise InvalidInput(f"{turn_where}: unknown role {speaker!r}; expected one of {sorted(ROLES)}")
        turn_id = _field(item, "id", str, turn_where) if "id" in item else f"{sid}:{i}"
        turns.append(_build(Turn, turn_where, speaker=speaker,
                            content=_field(item, "content", str, turn_where), id=turn_id))
    return _build(Session, where, session_id=sid, session_time=session_time, turns=tuple(turns))


# ---------------------------------------------------------------- detection


def detect_format(path: PathLike) -> Format:
    """Which loader reads ``path``, judged from its first megabyte, not its name.

    A list whose first record's keys are LoCoMo's (``qa``, ``conversation``,
    ``sample_id``...) -> ``"locomo"``; LongMemEval's (``question_id``,
    ``haystack_sessions``...) -> ``"longmemeval"``; a first line that is a JSON
    object with ``turns`` -> ``"jsonl"``. Anything else raises InvalidInput.

    Example:
        >>> detect_format("tests/data/locomo_dev7.json")
        'locomo'
    """
    p = _existing_file(path)
    with p.open("rb") as f:
        head = f.read(PEEK_BYTES).decode("utf-8-sig", errors="replace")
    start = head.lstrip()
    if start.startswith("{"):
        first_line = start.split("\n", 1)[0]
        try:
            first = json.loads(first_line)
        except json.JSONDecodeError:
            first = None
        if isinstance(first, dict) and "turns" in first:
            return "jsonl"
        raise InvalidInput(f"{p}: starts with an object but its first line is not a JSONL session with 'turns'")
    if start.startswith("["):
        match = _KEY_RE.search(start)
        if match is not None:
            return "locomo" if match[1] in LOCOMO_KEYS else "longmemeval"
        raise InvalidInput(f"{p}: a JSON list, but its records are neither LoCoMo "
                           f"({', '.join(LOCOMO_KEYS[:3])}) nor LongMemEval ({', '.join(LONGMEMEVAL_KEYS[:4])})")
    raise InvalidInput(f"{p}: not a LoCoMo, LongMemEval or JSONL session file (starts with {start[:20]!r})")


_LOADERS: dict[str, Callable[[PathLike], list[Any]]] = {
    "locomo": load_locomo,
    "longmemeval": load_longmemeval,
    "jsonl": load_jsonl,
}


def load_any(path: PathLike) -> list[Conversation] | list[Session]:
    """Detect the format of ``path`` and load it: Conversations for LoCoMo and
    LongMemEval, Sessions for JSONL.

    Example:
        >>> len(load_any("tests/data/sample.jsonl"))
        3
    """
    return _LOADERS[detect_format(path)](path)


__all__ = [
    "Conversation",
    "Format",
    "Question",
    "Session",
    "Turn",
    "detect_format",
    "load_any",
    "load_jsonl",
    "load_locomo",
    "load_longmemeval",
    "parse_locomo_time",
    "parse_longmemeval_time",
]
