"""On-disk cache of validated LLM answers, one small JSON file per key.

Why: re-ingesting the same turns (a retried write, an eval rerun, a rebuilt
graph) must not pay for the same LLM calls twice, and must give the same
answer. The key is the sha256 of (prompt version, model, rendered input), so a
new prompt version or model never reads a stale answer.

Each entry stores the validated JSON answer plus hashes only: the hash of the
rendered input and a sha256 of every text the input was built from (turn
texts, fact texts, names). No plain text sits outside the answer, and a later
"forget" finds every entry built from a given turn, directly or through what
another entry answered, with `LLMCache.derived_from` (`forget_texts` deletes
them); files it cannot read are removed by `remove_unreadable`.

Files are written to a temporary name and moved into place with
``os.replace``, so a crash never leaves half an entry and concurrent writers
of the same key simply race to an identical result.

Layout: ``<directory>/<key[:2]>/<key>.json``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

log = logging.getLogger("graphmem.ingest.llm")

ENTRY_NAME = re.compile(r"[0-9a-f]{64}\.json")


def text_hash(text: str) -> str:
    """sha256 hex of a text (UTF-8); what entries record instead of the text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(prompt_version: str, model: str, rendered_input: Any) -> str:
    """sha256 hex of (prompt version, model, rendered input as canonical JSON).

    Example:
        >>> len(cache_key("extract-v1", "m", [{"role": "user", "content": "hi"}]))
        64
    """
    payload = json.dumps([prompt_version, model, rendered_input], sort_keys=True, ensure_ascii=False)
    return text_hash(payload)


class CacheEntry(BaseModel):
    """One stored answer and what it was computed from (as hashes)."""

    model_config = ConfigDict(frozen=True)

    key: str
    prompt_version: str
    model: str
    input_hash: str = Field(description="sha256 of the rendered input")
    text_hashes: tuple[str, ...] = Field(default=(), description="sha256 of each source text")
    created_at: datetime
    value: dict[str, Any] = Field(description="the validated JSON answer")


class LLMCache:
    """A directory of `CacheEntry` files; nothing is created until the first put.

    Example:
        >>> import tempfile
        >>> cache = LLMCache(tempfile.mkdtemp())
        >>> key = cache_key("extract-v1", "m", "rendered input")
        >>> cache.put(key, {"facts": []}, prompt_version="extract-v1", model="m",
        ...           input_hash=text_hash("rendered input"), text_hashes=[text_hash("I live in Oslo.")])
        >>> cache.get(key)
        {'facts': []}
        >>> cache.forget_texts(["I live in Oslo."]), cache.get(key)
        (1, None)
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        if len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
            raise ValueError(f"not a sha256 hex key: {key!r}")
        return self.directory / key[:2] / f"{key}.json"

    def _read(self, path: Path) -> CacheEntry | None:
        try:
            return CacheEntry.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValidationError) as exc:
            log.warning("unreadable LLM cache entry %s ignored: %s", path.name, exc)
            return None

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored answer for ``key``, or None (missing or unreadable)."""
        entry = self._read(self._path(key))
        return None if entry is None else entry.value

    def put(
        self,
        key: str,
        value: dict[str, Any],
        *,
        prompt_version: str,
        model: str,
        input_hash: str,
        text_hashes: Iterable[str] = (),
    ) -> None:
        """Store ``value`` under ``key`` atomically (tmp file + os.replace)."""
        entry = CacheEntry(
            key=key,
            prompt_version=prompt_version,
            model=model,
            input_hash=input_hash,
            text_hashes=tuple(dict.fromkeys(text_hashes)),
            created_at=datetime.now(UTC),
            value=value,
        )
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(entry.model_dump_json())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def delete(self, key: str) -> bool:
        """Remove the entry for ``key``; True if there was one."""
        try:
            self._path(key).unlink()
        except FileNotFoundError:
            return False
        return True

    def _files(self) -> Iterator[Path]:
        if self.directory.is_dir():
            yield from (p for p in self.directory.glob("??/*") if p.is_file())

    def _entry_at(self, path: Path) -> CacheEntry | None:
        """The entry a file holds, or None for a temp file, a stray or an unreadable one."""
        if not ENTRY_NAME.fullmatch(path.name):
            return None
        entry = self._read(path)
        return entry if entry is not None and entry.key == path.stem else None

    def entries(self) -> Iterator[CacheEntry]:
        """Every readable entry, in no particular order."""
        for path in self._files():
            entry = self._entry_at(path)
            if entry is not None:
                yield entry

    def derived_from(self, texts: Iterable[str]) -> tuple[str, ...]:
        """Keys of every entry built from any of ``texts``, transitively.

        An entry's answer feeds later calls: the facts and names an extraction
        answered are what the resolve stages are then asked about (keyed by
        those fact and name texts, not by the turn). So the text of every
        string in a matched entry's answer counts as derived too, until nothing
        new matches. Deleting an entry too many only costs a repeated call.
        """
        hashes = {text_hash(t) for t in texts}
        pending = list(self.entries())
        found: set[str] = set()
        grew = True
        while grew:
            grew = False
            for entry in pending:
                if entry.key not in found and not hashes.isdisjoint(entry.text_hashes):
                    found.add(entry.key)
                    hashes |= {text_hash(s) for s in _strings(entry.value)}
                    grew = True
        return tuple(sorted(found))

    def remove_unreadable(self) -> int:
        """Delete every file that is not a readable entry (corrupt entries, temp
        files of a crashed or concurrent writer); how many were.

        Why: a forget cannot tell what such a file was built from, so it may hold
        forgotten text; the cost of removing one is at most a repeated call (a
        concurrent writer whose temp file goes logs and carries on uncached).
        """
        removed = 0
        for path in list(self._files()):
            if self._entry_at(path) is None:
                path.unlink(missing_ok=True)
                removed += 1
        return removed

    def forget_inputs(self, predicate: Callable[[CacheEntry], bool]) -> int:
        """Delete every entry for which ``predicate(entry)`` is true; how many were."""
        doomed = [entry.key for entry in self.entries() if predicate(entry)]
        return sum(self.delete(key) for key in doomed)

    def forget_texts(self, texts: Sequence[str]) -> int:
        """Delete every entry built from any of ``texts`` (see `derived_from`)."""
        return sum(self.delete(key) for key in self.derived_from(texts))


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value (keys excluded)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


__all__ = ["CacheEntry", "LLMCache", "cache_key", "text_hash"]
