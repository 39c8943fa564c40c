"""Scoring answers: our LLM judge, token F1, the judge's calibration, and the
official LongMemEval script.

Why each piece:
- The judge prompt is ours and its reply must be JSON ``{"label": "CORRECT"}`` or
  ``{"label": "WRONG"}`` (a bare CORRECT/WRONG word is accepted too); anything
  else is a judge error, counted, never guessed.
- Judges disagree wildly across prompts, so every report prints this judge's
  agreement, false positive and false negative rates on a hand-labelled set
  (`evals/data/judge_calibration.json`, rules in ``JUDGE_LABELLING.md``).
- LongMemEval abstention questions (``_abs`` in the id) are correct iff the
  answer abstains; they get their own judge prompt.
- With ``--official-script`` LongMemEval's own ``evaluate_qa.py`` judges instead,
  run as a subprocess against the judge endpoint; its per-line labels are read back.
"""

from __future__ import annotations

import json
import os
import re
import string
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from graphmem.schema.errors import GraphMemError, InvalidInput

PROMPT_VERSION = "judge-v1"
OUR_JUDGE = "graphmem judge (not the official script)"

_SYSTEM = (
    "You grade answers to questions about a user's past conversations. Compare the "
    "candidate answer with the gold answer. CORRECT if the candidate states the same "
    "fact as the gold answer, in any wording; extra detail is fine if it does not "
    "contradict the gold. WRONG if it contradicts the gold, gives a different date, "
    "count, name or place, gives only part of a multi-part gold answer, hedges "
    "between options, or declines to answer. Dates: the same day/month/year in any "
    "format is CORRECT. Reply with JSON only: {\"label\": \"CORRECT\"} or {\"label\": \"WRONG\"}."
)
_SYSTEM_ABSTAIN = (
    "You grade answers to questions that cannot be answered from the user's past "
    "conversations (the information was never given). CORRECT if the candidate says "
    "the information is not available, was never mentioned, or cannot be determined. "
    "WRONG if it gives an answer as if it were known. Reply with JSON only: "
    "{\"label\": \"CORRECT\"} or {\"label\": \"WRONG\"}."
)


def is_abstention(question_id: str) -> bool:
    """LongMemEval marks unanswerable questions with ``_abs`` in the id."""
    return "_abs" in question_id


def render(question: str, gold: str, candidate: str, *, abstention: bool = False) -> list[dict[str, str]]:
    """The judge's chat messages for one answer."""
    label = "Explanation of why it is unanswerable" if abstention else "Gold answer"
    text = f"Question: {question}\n{label}: {gold}\nCandidate answer: {candidate}\nLabel:"
    return [{"role": "system", "content": _SYSTEM_ABSTAIN if abstention else _SYSTEM}, {"role": "user", "content": text}]


def parse_label(reply: str) -> bool | None:
    """True for CORRECT, False for WRONG, None for anything else (a judge error).

    Example:
        >>> parse_label('{"label": "CORRECT"}'), parse_label("WRONG"), parse_label("maybe")
        (True, False, None)
    """
    text = reply.strip().strip("`").removeprefix("json").strip()
    try:
        value = json.loads(text)
    except ValueError:
        value = text.strip(" .\"'")
    if isinstance(value, dict):
        value = value.get("label")
    if not isinstance(value, str):
        return None
    return {"CORRECT": True, "WRONG": False}.get(value.strip().upper())


# --- token F1 (LoCoMo) ---------------------------------------------------------

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    """Lowercase, drop punctuation and articles, squeeze spaces (SQuAD/LoCoMo style)."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCT)).split())


def token_f1(prediction: str, gold: str) -> float:
    """Token-overlap F1 of two answers after `normalize_answer`.

    Example:
        >>> token_f1("The red car", "red car"), token_f1("blue", "red")
        (1.0, 0.0)
    """
    pred, ref = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


# --- calibration ---------------------------------------------------------------


class CalibrationItem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str
    gold: str
    candidate: str
    label: bool
    kind: str
    abstention: bool = False


class CalibrationRates(BaseModel):
    """How the judge did on the labelled set: rates over the items it labelled.

    ``false_positive_rate`` = judged CORRECT among items labelled wrong;
    ``false_negative_rate`` = judged WRONG among items labelled correct.
    """

    model_config = ConfigDict(frozen=True)

    items: int
    judged: int
    errors: int
    agreement: float
    false_positive_rate: float
    false_negative_rate: float


def load_calibration(path: Path | None = None) -> list[CalibrationItem]:
    """The labelled judge set (default: the packaged one)."""
    if path is None:
        text = resources.files("graphmem.evals").joinpath("data/judge_calibration.json").read_text("utf-8")
    else:
        text = Path(path).read_text("utf-8")
    return [CalibrationItem.model_validate(item) for item in json.loads(text)["items"]]


def calibration_rates(labels: Sequence[bool], verdicts: Sequence[bool | None]) -> CalibrationRates:
    """Agreement, false positive and false negative rates; None verdicts are errors.

    Example:
        >>> calibration_rates([True, False, False], [True, True, None]).false_positive_rate
        1.0
    """
    pairs = [(lab, v) for lab, v in zip(labels, verdicts, strict=True) if v is not None]
    negatives = [v for lab, v in pairs if not lab]
    positives = [v for lab, v in pairs if lab]
    return CalibrationRates(
        items=len(labels),
        judged=len(pairs),
        errors=len(labels) - len(pairs),
        agreement=sum(lab == v for lab, v in pairs) / len(pairs) if pairs else 0.0,
        false_positive_rate=sum(negatives) / len(negatives) if negatives else 0.0,
        false_negative_rate=sum(not v for v in positives) / len(positives) if positives else 0.0,
    )


def calibrate(
    judge: Callable[[str, str, str, bool], bool | None], items: Sequence[CalibrationItem]
) -> CalibrationRates:
    """Run ``judge(question, gold, candidate, abstention)`` over the labelled set and score it."""
    verdicts = [judge(i.question, i.gold, i.candidate, i.abstention) for i in items]
    return calibration_rates([i.label for i in items], verdicts)


# --- the official LongMemEval script -------------------------------------------


class OfficialResult(BaseModel):
    """What ``evaluate_qa.py`` decided, read back from its result file."""

    model_config = ConfigDict(frozen=True)

    labels: dict[str, bool]
    accuracy: float
    by_type: dict[str, float]
    result_file: str


def write_hypotheses(path: Path, answers: dict[str, str]) -> Path:
    """LongMemEval's official hypothesis format: one ``{"question_id", "hypothesis"}`` per line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for qid, hypothesis in answers.items():
            f.write(json.dumps({"question_id": qid, "hypothesis": hypothesis}, ensure_ascii=False) + "\n")
    return path


def run_official_script(
    script: Path, judge_model: str, hypotheses: Path, reference: Path, *, base_url: str, api_key: str,
    question_types: dict[str, str], timeout: float = 3600,
) -> OfficialResult:
    """Run ``python evaluate_qa.py JUDGE HYP REF`` against the judge endpoint and read its labels.

    The script writes ``HYP.eval-results-JUDGE`` (one JSON line per hypothesis
    with ``autoeval_label.label``); that file, not its printout, is the result.
    Raises `GraphMemError` when the script fails or writes no result.
    """
    if not script.is_file():
        raise InvalidInput(f"--official-script {script}: no such file")
    env = {**os.environ, "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": api_key or "not-needed"}
    result_file = Path(f"{hypotheses}.eval-results-{judge_model}")
    done = subprocess.run(
        [sys.executable, str(script), judge_model, str(hypotheses), str(reference)],
        env=env, cwd=script.parent, capture_output=True, text=True, timeout=timeout, check=False,
    )
    if done.returncode != 0 or not result_file.is_file():
        tail = (done.stdout + done.stderr)[-800:]
        raise GraphMemError(f"the official script failed (exit {done.returncode}) or wrote no {result_file.name}: {tail}")
    labels = {}
    for line in result_file.read_text("utf-8").splitlines():
        if line.strip():
            entry = json.loads(line)
            labels[str(entry["question_id"])] = bool(entry["autoeval_label"]["label"])
    return OfficialResult(labels=labels, accuracy=_mean(labels.values()), by_type=_by_type(labels, question_types),
                          result_file=str(result_file))


def _mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def _by_type(labels: dict[str, bool], question_types: dict[str, str]) -> dict[str, float]:
    groups: dict[str, list[bool]] = {}
    for qid, label in labels.items():
        groups.setdefault(question_types.get(qid, "?"), []).append(label)
    return {kind: _mean(values) for kind, values in sorted(groups.items())}


__all__ = [
    "OUR_JUDGE",
    "PROMPT_VERSION",
    "CalibrationItem",
    "CalibrationRates",
    "OfficialResult",
    "calibrate",
    "calibration_rates",
    "is_abstention",
    "load_calibration",
    "normalize_answer",
    "parse_label",
    "render",
    "run_official_script",
    "token_f1",
    "write_hypotheses",
]
