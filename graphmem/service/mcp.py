"""`graphmem mcp`: the `Memory` verbs as MCP tools (the official `mcp` SDK's
`MCPServer`, which mcp 2 renamed from FastMCP).

Tools: `add_memory` (a session), `search_memory`, `list_facts`, `fact_history`,
`forget` (a dry run unless `confirm` is true) and `list_users`. Each takes the
same arguments as the Python verb, and returns the same pydantic model, so the
tool's output schema is the model's, and the request models (`Turn`) and the
search response (`SearchResponse`) are the HTTP service's: one definition, not two.

Who may touch which user is a `UserScope` asked per call: over stdio it is fixed
when the server starts (`--users`, or the key in `GRAPHMEM_MCP_KEY`); over HTTP
it is the bearer key of the request (`graphmem.service.mcp_http`). A user outside
the scope gets the same refusal whether or not it exists, so nothing leaks. A key
limited to memory scopes reads and writes only those, as over HTTP
(`graphmem.service.scoping`); `forget`, which acts on every scope, refuses it.

Errors: a `GraphMemError` becomes a tool error carrying its message (`ToolError`:
`is_error` with the text, no traceback); anything else reaches the agent as the
SDK's bare "Error executing tool <name>" and is logged on the server.

One `Memory` serves every call, one call at a time (a lock): the SDK runs each
call on a worker thread, and the warm search indexes are per process. More
throughput is `graphmem serve` with several workers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Protocol, TypeVar

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from graphmem.forgetting.pipeline import ForgetReport
from graphmem.schema.errors import GraphMemError
from graphmem.schema.models import DEFAULT_SCOPE
from graphmem.schema.records import CandidateRecord, FactRecord, GateResult, Timeline, WriteResult
from graphmem.service import scoping
from graphmem.service.models import SearchResponse, Turn

if TYPE_CHECKING:
    from graphmem.memory import Memory

T = TypeVar("T")

INSTRUCTIONS = """\
graphmem is a long-term memory of what users said, kept per user id.
Write each finished conversation with add_memory; before answering from memory,
call search_memory with the question and put its text into your context.
Two times matter. Valid time: when something was true in the world (valid_at,
as_of, now). Known time: when graphmem learnt it (known_at). A newer statement
("I moved to Shanghai") closes the older fact instead of deleting it, so
list_facts with valid_at in the past still answers "where did I live then?".
forget deletes permanently: run it first without confirm to see what would go.
Times are ISO-8601 (2024-05-01 or 2024-05-01T09:30:00+02:00); no zone means UTC."""

UserId = Annotated[str, Field(description="whose memory: 1 to 128 letters, digits, '_' or '-'")]
When = Annotated[str | None, Field(description="ISO-8601, e.g. 2024-05-01 or 2024-05-01T09:30:00+02:00 (no zone = UTC)")]
Scopes = Annotated[list[str] | None, Field(description=(
    "memory scopes to read: user, project:<id>, agent:<id> (default: user, or every scope of a key limited "
    "to scopes)"))]



def _decide(m: "Memory", held: scoping.Held, user_id: str, fact_uuid: str, verb: Callable[[str, str], GateResult]) -> GateResult:
    """Confirm or reject, within a scoped key's scopes only (the HTTP routes do the same)."""
    if held is not None:
        scoping.require_visible_candidate(m.candidates(user_id), held, user_id, fact_uuid)
    return verb(user_id, fact_uuid)

class UserScope(Protocol):
    """The users a caller may touch, and the memory scopes (None: every scope) it
    may read and write (an `ApiKey` is one)."""

    @property
    def scopes(self) -> tuple[str, ...] | None: ...

    def covers(self, user_id: str) -> bool: ...


@dataclass(frozen=True)
class FixedScope:
    """A scope chosen when the server starts: some users, or every user (None)."""

    users: frozenset[str] | None = None
    scopes: tuple[str, ...] | None = None

    def covers(self, user_id: str) -> bool:
        return self.users is None or user_id in self.users


class Selector(BaseModel):
    """What to forget: exactly one of the fields."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(None, description="turns containing this text as whole words, case-insensitive, "
                                               "and the facts they stated")
    entity: str | None = Field(None, description="an entity name or uuid and every fact about it")
    fact: str | None = Field(None, description="one fact uuid (from list_facts or search_memory)")
    session_id: str | None = Field(None, description="a whole session written with add_memory")
    between: list[str] | None = Field(None, min_length=2, max_length=2,
                                      description="turns said in [start, end): two ISO-8601 times")
    all: bool = Field(False, description="the user's whole memory")

    def as_dict(self) -> dict:
        return self.model_dump(exclude_none=True, exclude_defaults=True)


class GraphMemTools:
    """The tool functions, bound to one `Memory` and a way to find the caller's scope."""

    def __init__(self, memory: "Memory", scope_of: Callable[[Context], UserScope]) -> None:
        self._memory = memory
        self._scope_of = scope_of
        self._lock = threading.Lock()

    async def _run(self, ctx: Context, user_id: str | None, call: Callable[["Memory", UserScope], T]) -> T:
        """`call(memory, scope)` on a worker thread, after the user check; GraphMemError -> ToolError."""
        scope = self._scope_of(ctx)
        if user_id is not None and not scope.covers(user_id):
            raise ToolError(f"user {user_id!r} is not covered by this server's scope or key")

        def locked() -> T:
            with self._lock:
                return call(self._memory, scope)

        try:
            return await anyio.to_thread.run_sync(locked)
        except GraphMemError as exc:
            raise ToolError(str(exc)) from exc

    async def add_memory(self, user_id: UserId, turns: list[Turn],
                         session_time: Annotated[str, Field(description=(
                             "when the conversation happened (ISO-8601); relative dates said in it "
                             "('last month') resolve against this, never against the wall clock"))],
                         session_id: Annotated[str | None, Field(description=(
                             "names the session; writing the same session again changes nothing"))] = None,
                         scope: Annotated[str | None, Field(description=(
                             "the memory scope it belongs to: user (default), project:<id> or agent:<id>"))] = None,
                         *, ctx: Context) -> WriteResult:
        """Store one conversation session and the facts it states.

        Call it when a conversation (or a meaningful part of one) is over. Every turn is
        kept verbatim as evidence; facts extracted from it get a validity range, and a
        fact that contradicts an older one closes it (the older one stays in history).
        Returns counts of what was stored; `errors` lists extraction problems (the turns
        are stored regardless)."""
        raw = [t.as_dict() for t in turns]
        return await self._run(ctx, user_id, lambda m, s: m.write(
            user_id, raw, session_time, session_id, scope=scoping.write_scope(s.scopes, scope)))

    async def search_memory(self, user_id: UserId,
                            query: Annotated[str, Field(description="the question, in natural language")],
                            now: Annotated[When, Field(description=(
                                "the present moment for the question: anchors 'last month', 'in April' and "
                                "decides what is current (default: the wall clock)"))] = None,
                            as_of: Annotated[When, Field(description=(
                                "ask about the world at this moment (valid time), e.g. where the user lived "
                                "then"))] = None,
                            known_at: Annotated[When, Field(description=(
                                "answer with only what graphmem had been told by this moment (known time)"))] = None,
                            limit: Annotated[int, Field(ge=1, le=100, description="at most this many facts and "
                                                                                  "turns")] = 10,
                            scopes: Scopes = None,
                            *, ctx: Context) -> Annotated[CallToolResult, SearchResponse]:
        """Answer a question from memory: dated facts with their validity and the turns
        they rest on, or an abstention when nothing relevant was ever said.

        Call it before answering anything that depends on what the user told you earlier.
        Questions with "before", "used to", "first" or a date are answered historically
        by themselves. The text result is ready to paste into your context (each line
        dated, citing turn ids); the structured result is the whole packet plus that
        text as "prompt". If "abstain" is true, say you were never told."""
        packet = await self._run(ctx, user_id, lambda m, s: m.search(
            user_id, query, now=now, as_of=as_of, known_at=known_at, limit=limit,
            scopes=scoping.read_scopes(s.scopes, scopes, (DEFAULT_SCOPE,))))
        prompt = packet.to_prompt()
        return CallToolResult(content=[TextContent(type="text", text=prompt)],
                              structured_content={**packet.model_dump(mode="json"), "prompt": prompt})

    async def list_facts(self, user_id: UserId,
                         valid_at: Annotated[When, Field(description=(
                             "facts true in the world at this moment (valid time; default now)"))] = None,
                         known_at: Annotated[When, Field(description=(
                             "as graphmem knew them at this moment (known time; default now)"))] = None,
                         subject: Annotated[str | None, Field(description="only facts about this entity")] = None,
                         scopes: Annotated[list[str] | None, Field(description=(
                             "only facts of these scopes (default every scope, or the key's scopes)"))] = None,
                         *, ctx: Context) -> list[FactRecord]:
        """The facts true at a moment as known at a moment, each with its validity range
        (valid_at -> invalid_at), status (current, superseded, ended), what superseded it
        and the turns it came from.

        Use it for a full picture rather than an answer to one question; valid_at in the
        past shows what was true then, known_at in the past shows what you had been told
        by then."""
        return await self._run(ctx, user_id, lambda m, s: m.facts(
            user_id, valid_at=valid_at, known_at=known_at, subject=subject,
            scopes=scoping.read_scopes(s.scopes, scopes, None)))

    async def fact_history(self, user_id: UserId,
                           entity_or_fact: Annotated[str, Field(description=(
                               "an entity name ('user', 'Luna') or uuid, or a fact uuid"))],
                           *, ctx: Context) -> Timeline:
        """Every version of an entity's facts (or of one fact's slot) over time, oldest
        first, superseded ones included: how something changed ("where has the user
        lived?"). Fails with a message when the entity or fact does not exist."""
        return await self._run(ctx, user_id, lambda m, s: scoping.visible_timeline(
            m.history(user_id, entity_or_fact), s.scopes, user_id, entity_or_fact))

    async def forget(self, user_id: UserId, selector: Selector,
                     confirm: Annotated[bool, Field(description=(
                         "false (default): a dry run that only reports what would go; true: delete it, "
                         "permanently"))] = False,
                     *, ctx: Context) -> ForgetReport:
        """Delete what the selector names and everything resting on it: the turns that
        said it, facts only those turns support, facts derived from them and entities
        left with nothing. A fact the deleted one had superseded becomes current again.

        PERMANENT: the text is removed from disk and cannot be restored. Always call it
        first with confirm=false, show the user the report (dry_run=true lists the
        facts, turn ids and entities), and call again with confirm=true only when the
        user asked for exactly that."""
        chosen = selector.as_dict()

        def run(m: "Memory", s: UserScope) -> ForgetReport:
            scoping.require_every_scope(s.scopes, "forget")
            return m.forget(user_id, chosen, dry_run=not confirm, confirm=confirm)

        return await self._run(ctx, user_id, run)

    async def list_candidates(self, user_id: UserId, *, ctx: Context) -> list[CandidateRecord]:
        """Facts the write gate held back instead of storing them as long-term facts:
        passing states ("tired today"), hedged or minor statements. They are not in
        search. Show them to the user when asked what you were unsure about; confirm
        or reject only what the user decided."""
        return await self._run(ctx, user_id, lambda m, s: scoping.visible_candidates(m.candidates(user_id), s.scopes))

    async def confirm_candidate(self, user_id: UserId,
                                fact_uuid: Annotated[str, Field(description="a uuid from list_candidates")],
                                *, ctx: Context) -> GateResult:
        """Make a held-back candidate a long-term fact (it may supersede an older value).
        Only when the user said it should be remembered."""
        return await self._run(ctx, user_id, lambda m, s: _decide(m, s.scopes, user_id, fact_uuid, m.confirm))

    async def reject_candidate(self, user_id: UserId,
                               fact_uuid: Annotated[str, Field(description="a uuid from list_candidates")],
                               *, ctx: Context) -> GateResult:
        """Drop a held-back candidate for good (a rebuild does not bring it back). Only when
        the user said it is wrong or not worth keeping."""
        return await self._run(ctx, user_id, lambda m, s: _decide(m, s.scopes, user_id, fact_uuid, m.reject))

    async def list_users(self, *, ctx: Context) -> list[str]:
        """The user ids that have a memory here and that this server's scope or key
        covers. Use it to find the user_id the other tools take; a user missing from
        this list is out of reach for this connection, whether or not it exists."""
        scope = self._scope_of(ctx)
        found = await self._run(ctx, None, lambda m, _s: m.users())
        return [u for u in found if scope.covers(u)]


READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def build_server(memory: "Memory", scope_of: Callable[[Context], UserScope], **options) -> MCPServer:
    """An `MCPServer` whose tools act on `memory` within the caller's scope.

    :param memory: an open `Memory`; the caller closes it when the server stops.
    :param scope_of: the scope of the call in `ctx` (fixed for stdio, the key for HTTP).
    :param options: passed to `MCPServer` (for example `token_verifier`, `auth`).
    """
    tools = GraphMemTools(memory, scope_of)
    server = MCPServer("graphmem", instructions=INSTRUCTIONS, log_level="WARNING", **options)
    server.add_tool(tools.add_memory, annotations=ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False))
    server.add_tool(tools.search_memory, annotations=READ_ONLY)
    server.add_tool(tools.list_facts, annotations=READ_ONLY)
    server.add_tool(tools.fact_history, annotations=READ_ONLY)
    server.add_tool(tools.forget, annotations=ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False))
    server.add_tool(tools.list_users, annotations=READ_ONLY)
    server.add_tool(tools.list_candidates, annotations=READ_ONLY)
    decide = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
    server.add_tool(tools.confirm_candidate, annotations=decide)
    server.add_tool(tools.reject_candidate, annotations=decide)
    return server
