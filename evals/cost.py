"""What each system cost: LLM calls and tokens for ingestion and for answering,
ingestion wall time, and dollars from a price table the user gives (pure).

Why: a memory that scores two points higher by making ten times the LLM calls
per turn is a different product. Tokens come from the endpoint's ``usage``;
dollars only from ``--prices FILE`` (``{model: {"prompt": $/1M, "completion": $/1M}}``),
never from a table baked in here that would silently go stale.

Example:
    >>> prices = load_prices_text('{"m": {"prompt": 1.0, "completion": 2.0}}')
    >>> dollars(prices, "m", 1_000_000, 500_000)
    2.0
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from graphmem.schema.errors import InvalidInput


class Price(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt: float
    completion: float


Prices = dict[str, Price]


class Usage(BaseModel):
    """Calls and tokens of one kind of work (ingestion or answering)."""

    model_config = ConfigDict(frozen=True)

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(**{k: getattr(self, k) + getattr(other, k) for k in Usage.model_fields})


class SystemCost(BaseModel):
    """One system's cost in a run; ``dollars`` is None without a price table."""

    model_config = ConfigDict(frozen=True)

    ingest: Usage
    answer: Usage
    ingest_seconds: float
    episodes: int
    dollars: float | None = None

    @property
    def calls_per_episode(self) -> float:
        return self.ingest.calls / self.episodes if self.episodes else 0.0


def load_prices_text(text: str) -> Prices:
    """Parse a price table; raises `InvalidInput` on a malformed one."""
    try:
        raw = json.loads(text)
        if not isinstance(raw, dict):
            raise InvalidInput("the price table must be a JSON object {model: {prompt, completion}}")
        return {str(model): Price.model_validate(entry) for model, entry in raw.items()}
    except (ValueError, ValidationError) as exc:
        raise InvalidInput(f"unreadable price table: {exc}") from exc


def load_prices(path: Path | None) -> Prices | None:
    """The price table at ``path`` (None: no dollars)."""
    if path is None:
        return None
    try:
        return load_prices_text(Path(path).read_text("utf-8"))
    except OSError as exc:
        raise InvalidInput(f"--prices {path}: {exc}") from exc


def dollars(prices: Prices, model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """The price of these tokens on ``model``; raises `InvalidInput` if it has no price."""
    if model not in prices:
        raise InvalidInput(f"the price table has no entry for model {model!r} (has: {', '.join(sorted(prices))})")
    price = prices[model]
    return (prompt_tokens * price.prompt + completion_tokens * price.completion) / 1_000_000


def system_cost(
    ingest: Usage, answer_by_model: dict[str, Usage], ingest_model: str | None, ingest_seconds: float,
    episodes: int, prices: Prices | None,
) -> SystemCost:
    """Sum the usage and, with a price table, price it (ingestion at ``ingest_model``)."""
    answer = _sum(answer_by_model.values())
    cost = None
    if prices is not None:
        cost = sum(dollars(prices, m, u.prompt_tokens, u.completion_tokens) for m, u in answer_by_model.items())
        if ingest.calls and ingest_model is not None:
            cost += dollars(prices, ingest_model, ingest.prompt_tokens, ingest.completion_tokens)
    return SystemCost(ingest=ingest, answer=answer, ingest_seconds=ingest_seconds, episodes=episodes, dollars=cost)


def _sum(usages: Iterable[Usage]) -> Usage:
    total = Usage()
    for usage in usages:
        total = total + usage
    return total


__all__ = ["Price", "Prices", "SystemCost", "Usage", "dollars", "load_prices", "load_prices_text", "system_cost"]
