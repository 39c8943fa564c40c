"""API keys: who may call the service, and for which users.

A key is a random token (``gm_`` + 32 random bytes, URL-safe base64) shown once
when it is created; only its SHA-256 digest is stored, in
``<data dir>/api_keys.json`` (mode 0600, replaced atomically under a file lock,
so `graphmem keys create` can run while the service is up). Every
`KeyStore.authenticate` checks the file's modification time and reloads it when
it changed, so a key created or revoked takes effect in every worker at the next
request, without a restart.

Why SHA-256 and not bcrypt/argon2: those slow hashes exist to protect guessable
passwords from an offline attack on a leaked hash file. A 256-bit random token
cannot be guessed; a single SHA-256 already makes a leaked digest useless, and a
slow hash would only add tens of milliseconds to every request.

Keys can also come from the environment (``GRAPHMEM_API_KEYS``, read when the
service starts), for deployments that hand secrets in as variables::

    GRAPHMEM_API_KEYS="<key>=alice,bob <key2>=* <key3>=alice@project:apollo,user"

Entries are separated by whitespace or ``;``; each is the key, ``=``, and a
comma-separated list of user ids or ``*`` for an admin key (all users),
optionally followed by ``@`` and the memory scopes the key is limited to
(`graphmem.service.scoping`; without it, every scope). The key
is the token itself (at least 32 characters) or ``sha256:<64 hex digits>``, its
digest, so the plaintext need not sit in the environment either
(`digest_of` computes it; `graphmem keys create` prints a fresh token).

Comparison is constant-time: `authenticate` hashes the presented token and
compares the digest with every stored one through `hmac.compare_digest`, never
stopping early, so the time taken does not depend on which key matched.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from graphmem.schema.errors import ConfigError, InvalidInput, NotFound
from graphmem.schema.models import check_scopes, check_user_id

KEY_FILENAME = "api_keys.json"
TOKEN_PREFIX = "gm_"
TOKEN_BYTES = 32
MIN_ENV_KEY_CHARS = 32
DIGEST_RE = re.compile(r"^sha256:([0-9a-f]{64})$")
ENV_VAR = "GRAPHMEM_API_KEYS"


def digest_of(token: str) -> str:
    """The stored form of a key: ``sha256:`` and the hex digest of its UTF-8 bytes.

    Example:
        >>> digest_of("gm_x")[:7]
        'sha256:'
    """
    return "sha256:" + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


class ApiKey(BaseModel):
    """A key as the service sees it: an id, the users it covers, when it was made.

    ``users`` is None for an admin key, which covers every user; ``scopes`` is
    None for a key of every scope (keys made before scopes existed are that).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    users: tuple[str, ...] | None = Field(None, description="user ids this key may act for; null = all (admin)")
    created_at: datetime
    source: str = Field("file", description="'file' (graphmem keys create) or 'env' (GRAPHMEM_API_KEYS)")
    scopes: tuple[str, ...] | None = Field(None, description="memory scopes this key may read and write; "
                                                             "null = every scope")

    @field_validator("scopes")
    @classmethod
    def _valid_scopes(cls, scopes: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if scopes is None else check_scopes(scopes)

    @property
    def admin(self) -> bool:
        return self.users is None

    def covers(self, user_id: str) -> bool:
        """True when this key may act for `user_id`.

        Example:
            >>> ApiKey(id="k", users=("alice",), created_at=datetime.now(UTC)).covers("bob")
            False
        """
        return self.users is None or user_id in self.users


class StoredKey(ApiKey):
    """A key with its digest: what the key file holds, never sent to a client."""

    digest: str

    def public(self) -> ApiKey:
        return ApiKey(id=self.id, users=self.users, created_at=self.created_at, source=self.source,
                      scopes=self.scopes)


class _KeyFile(BaseModel):
    keys: list[StoredKey] = []


def _check_users(users: object) -> tuple[str, ...] | None:
    if users is None:
        return None
    if isinstance(users, (str, bytes)) or not isinstance(users, (list, tuple)):
        raise InvalidInput("users must be a list of user ids (or None for an admin key)")
    if not users:
        raise InvalidInput("a key must cover at least one user; use an admin key for all")
    return tuple(dict.fromkeys(check_user_id(u) for u in users))


def _check_key_scopes(scopes: object) -> tuple[str, ...] | None:
    """None (every scope) or a non-empty list of valid scopes."""
    return None if scopes is None else check_scopes(scopes)


def parse_env_keys(value: str) -> list[StoredKey]:
    """`GRAPHMEM_API_KEYS` entries as keys (format in the module docstring).

    :raises ConfigError: an entry that is not ``KEY=users`` or ``KEY=*``, a key
        shorter than 32 characters, or a bad user id.

    Example:
        >>> [k.users for k in parse_env_keys("sha256:" + "0" * 64 + "=alice,bob")]
        [('alice', 'bob')]
        >>> [k.scopes for k in parse_env_keys("sha256:" + "0" * 64 + "=*@project:apollo")]
        [('project:apollo',)]
    """
    keys = []
    for n, entry in enumerate(e for e in re.split(r"[\s;]+", value) if e):
        token, sep, covered = entry.rpartition("=")
        scope, at, memory_scopes = covered.partition("@")
        if not sep or not token or not scope or (at and not memory_scopes):
            raise ConfigError(f"{ENV_VAR} entry {n + 1} is not KEY=user1,user2 or KEY=* "
                              "(optionally followed by @scope1,scope2)")
        if DIGEST_RE.match(token):
            digest = token
        elif len(token) >= MIN_ENV_KEY_CHARS:
            digest = digest_of(token)
        else:
            raise ConfigError(f"{ENV_VAR} entry {n + 1}: a key needs at least {MIN_ENV_KEY_CHARS} characters "
                              "(or give its sha256:<hex> digest)")
        try:
            users = None if scope == "*" else _check_users(scope.split(","))
            scopes = _check_key_scopes(memory_scopes.split(",")) if at else None
        except InvalidInput as exc:
            raise ConfigError(f"{ENV_VAR} entry {n + 1}: {exc}") from exc
        keys.append(StoredKey(id=f"env-{digest[7:15]}", users=users, digest=digest, scopes=scopes,
                              created_at=datetime(1970, 1, 1, tzinfo=UTC), source="env"))
    return keys


class KeyStore:
    """The keys of one data dir (file) plus those from the environment.

    Example:
        >>> ks = KeyStore(Path("/tmp/gm"))
        >>> key, token = ks.create(["alice"])
        >>> ks.authenticate(token).covers("alice")
        True
    """

    def __init__(self, data_dir: Path, env_keys: str | None = None) -> None:
        self.path = Path(data_dir).expanduser() / KEY_FILENAME
        self._env = parse_env_keys(env_keys) if env_keys else []
        self._cache: tuple[tuple[int, int] | None, list[StoredKey]] = (None, [])
        self._guard = threading.Lock()

    @classmethod
    def from_settings(cls, settings) -> "KeyStore":
        """The key store a `Settings` names: its data dir and `api_keys` (GRAPHMEM_API_KEYS)."""
        return cls(settings.data_dir, getattr(settings, "api_keys", None))

    # -- file -------------------------------------------------------------------

    def _stamp(self) -> tuple[int, int] | None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        return st.st_mtime_ns, st.st_size

    def _load(self) -> list[StoredKey]:
        try:
            return _KeyFile.model_validate_json(self.path.read_bytes()).keys
        except FileNotFoundError:
            return []
        except (OSError, ValidationError, ValueError) as exc:
            raise ConfigError(f"key file {self.path} cannot be read: {exc}") from exc

    def _file_keys(self) -> list[StoredKey]:
        """The file's keys, re-read only when its mtime or size changed."""
        stamp = self._stamp()
        with self._guard:
            if stamp != self._cache[0]:
                self._cache = (stamp, self._load() if stamp else [])
            return self._cache[1]

    @contextmanager
    def _editing(self) -> Iterator[list[StoredKey]]:
        """The file's keys under an exclusive lock; written back atomically on exit."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(self.path.with_name(KEY_FILENAME + ".lock"), "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            keys = self._load()
            yield keys
            tmp = self.path.with_name(f"{KEY_FILENAME}.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(_KeyFile(keys=keys).model_dump_json(indent=2))
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)

    # -- verbs ------------------------------------------------------------------

    def create(self, users: list[str] | tuple[str, ...] | None,
               scopes: list[str] | tuple[str, ...] | None = None) -> tuple[ApiKey, str]:
        """Make a key for `users` (None: an admin key), limited to the memory
        `scopes` (None: every scope); returns it and its token, which is not
        stored and cannot be shown again.

        :raises InvalidInput: an empty list, a bad user id or a bad scope.
        """
        scope = _check_users(users)
        limited = _check_key_scopes(scopes)
        token = new_token()
        key = StoredKey(id=secrets.token_hex(4), users=scope, scopes=limited, digest=digest_of(token),
                        created_at=datetime.now(UTC))
        with self._editing() as keys:
            keys.append(key)
        return key.public(), token

    def list(self) -> list[ApiKey]:
        """Every key, file keys by creation time then env keys; no digests."""
        return [k.public() for k in sorted(self._file_keys(), key=lambda k: k.created_at)] + \
            [k.public() for k in self._env]

    def revoke(self, key_id: str) -> None:
        """Delete a file key; requests with it fail from the next one on.

        :raises NotFound: no file key has that id (env keys go with their variable).
        """
        with self._editing() as keys:
            kept = [k for k in keys if k.id != key_id]
            if len(kept) == len(keys):
                raise NotFound(f"no key with id {key_id!r} in {self.path}")
            keys[:] = kept

    def authenticate(self, token: str | None) -> ApiKey | None:
        """The key `token` is, or None; constant-time over the stored digests."""
        if not token:
            return None
        presented = digest_of(token).encode()
        found: StoredKey | None = None
        for key in [*self._file_keys(), *self._env]:
            if hmac.compare_digest(presented, key.digest.encode()) and found is None:
                found = key
        return found.public() if found else None
