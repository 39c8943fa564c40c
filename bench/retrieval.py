"""Retrieval benchmark: the evaluation harness's LoCoMo table on the reporting split,
abstention, search latency at scale, packet size.

1. Evidence recall: the harness itself (`graphmem.evals.retrieval_run`, the code
   behind `graphmem eval retrieval`) on the LoCoMo **reporting split** only
   (`graphmem.evals.splits`: conv-42, -43, -44, -47; nothing was tuned on it),
   categories 1-4, k = 25, context budget 8,000 tokens. Systems: graphmem,
   naive RAG (BM25 + MiniLM RRF with k and weights tuned on the tuning split by
   `graphmem.evals.tune_rag`), BM25 alone, MiniLM alone (the same rankings,
   `graphmem.evals.baselines`), and Graphiti's own `COMBINED_HYBRID_SEARCH_RRF`
   over graphmem's graph. A question a system fails on scores 0 and is counted
   in its `errors` column. The same systems then run on the repo's 99-question
   LongMemEval sample pooled into one memory (191 sessions; recall@5/10/25,
   session any@10 and context tokens beside the same baselines);
   ``GRAPHMEM_BENCH_LME=0`` skips it.
2. Abstention (`bench.abstention`): `packet.abstain` on answerable, never-said
   and other-memory questions, tuning and reporting split, over the graph the
   harness wrote (the tuning conversations are added to it for their rows).
3. Search latency at 1,000 / 10,000 facts in one user's graph (100,000 with
   ``GRAPHMEM_BENCH_100K=1``: embedding 100k texts takes many minutes on a shared
   2-core machine), written through `Memory.add_facts` (the real write path):
   facts only, no turns (add_facts takes no source text), from distinct
   templated sentences ("<Person> <verb> <object> in <Month> <year>.", 1,000
   people), LIVES_IN and WORKS_AT single-valued, the rest multi-valued.
4. Default packet size (limit 10, default budget) on 50 reporting-split
   questions and on 50 pooled LongMemEval questions, and the share of fact lines
   that carry a dated range and a source turn id.

Everything runs in a temporary data dir; nothing is cached between runs.
"""

from __future__ import annotations

import os
import random
import re
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from bench.abstention import calibrate
from bench.common import header, percentiles_ms
from graphmem import Memory
from graphmem.embedding.embedder import default_embedder, warmed
from graphmem.evals import retrieval_run, splits
from graphmem.evals.report import retrieval_table
from graphmem.evals.systems._common import memory_id
from graphmem.ingest.loaders import Conversation, Question, load_locomo
from graphmem.retrieval.search import TOKENS_PER_RESULT

ROOT = Path(__file__).resolve().parent.parent
LOCOMO = ROOT / "tests" / "data" / "locomo_dev7.json"
LONGMEMEVAL = ROOT / "tests" / "data" / "longmemeval_oracle_sample99.json"
CATEGORIES = (1, 2, 3, 4)
SYSTEMS = ("graphmem", "rag", "bm25", "minilm", "graphiti")


@dataclass(frozen=True)
class Case:
    """One answerable question with the gold turns that exist in its conversation."""

    user: str
    question: Question
    gold: tuple[str, ...]


def user_of(conversation: Conversation) -> str:
    """The user the harness's graphmem system writes a conversation to."""
    return memory_id(conversation.conversation_id)


def cases_of(conversation: Conversation, categories: Sequence[int] | None = CATEGORIES) -> list[Case]:
    """The answerable questions of LoCoMo's `categories`; None takes every question (LongMemEval's
    categories are question types, all answerable)."""
    turns = conversation.turns_by_id()
    cases = []
    for question in conversation.questions:
        gold = tuple(e for e in question.evidence if e in turns)
        if (categories is None or question.category in categories) and gold:
            cases.append(Case(user_of(conversation), question, gold))
    return cases


def harness_table(dataset: retrieval_run.Dataset, out: Path, title: str) -> dict:
    """Part 1: the harness over `dataset`; prints its table (the one `graphmem eval retrieval` prints)."""
    header(title)
    results = retrieval_run.run(dataset, SYSTEMS, out)
    c = results["conditions"]
    print(f"  {c['dataset']}, {c['split']} split{', pooled' if c['pooled'] else ''}: {c['questions']} questions, "
          f"{c['conversations']} memories, k = {c['retrieve_k']}, context {c['context_tokens']:,} tokens, "
          f"embedder {c['embedder']['model']} ({c['embedder']['backend']})")
    for line in retrieval_table(results).splitlines():
        print("  " + line)
    graphiti = results["systems"].get("graphiti", {})
    print(f"  Graphiti: {graphiti.get('errors', 0)} of {c['questions']} questions raised "
          "(each scores 0 and is counted in `errors`, never read as an empty result)")
    return results


def locomo_reporting(out: Path) -> dict:
    dataset = retrieval_run.load_dataset("locomo", LOCOMO, split="reporting")
    results = harness_table(dataset, out, "retrieval: LoCoMo evidence recall, reporting split (the harness)")
    print(f"  split: reporting = {', '.join(splits.REPORTING)}; nothing was tuned on it (graphmem's recipe, "
          f"RAG's RRF k and weights and the abstention thresholds were chosen on tuning = "
          f"{', '.join(splits.TUNING)})")
    return results


def longmemeval_pooled(out: Path) -> dict | None:
    if os.environ.get("GRAPHMEM_BENCH_LME") == "0":
        print("\n  (LongMemEval pooled sample skipped: GRAPHMEM_BENCH_LME=0)")
        return None
    dataset = retrieval_run.load_dataset("longmemeval", LONGMEMEVAL, pooled=True)
    return harness_table(dataset, out, "retrieval: LongMemEval oracle sample (99 questions) pooled, the harness")


def ingest_missing(mem: Memory, conversations: Sequence[Conversation]) -> None:
    """Write the conversations the harness did not (the tuning split), for abstention's tuning rows."""
    present = set(mem.users())
    for conversation in conversations:
        if user_of(conversation) not in present:
            for session in conversation.sessions:
                mem.write(user_of(conversation), **session.write_args())


# -- latency at scale (part 4) -----------------------------------------------------

FIRST = ("Maria James Aisha Liam Sofia Noah Chen Olivia Mateo Emma Ravi Yuki Lucas Amara Elena Omar Hannah Diego "
         "Priya Tomas Ingrid Kwame Lena Hugo Fatima Jonas Mei Pablo Zara Felix Nadia Oscar Leila Ivan Clara Samir "
         "Greta Kenji Rosa Malik").split()
LAST = ("Lopez Smith Okafor Tanaka Novak Haddad Kim Rossi Larsen Mendes Patel Schmidt Dubois Moreau Ivanova "
        "Nguyen Walsh Costa Berg Alvarez Mensah Fischer Sato Murphy Reyes").split()
MONTHS = ("January February March April May June July August September October November December").split()
RELATIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = tuple(
    (predicate, phrase, tuple(objects.split(", ")))
    for predicate, phrase, objects in (
        ("LIVES_IN", "moved to", "Lisbon, Osaka, Nairobi, Toronto, Krakow, Valparaiso, Austin, Tbilisi, Hanoi, "
         "Reykjavik, Porto, Lagos, Melbourne, Montreal, Seville, Bergen, Chiang Mai, Cape Town, Denver, Ghent"),
        ("WORKS_AT", "started working at", "Acme Robotics, Globex, Northwind Traders, Blue Harbor Bank, "
         "Sunrise Bakery, Vertex Labs, the city library, Pine Valley Hospital, Orbit Airlines, Redwood Studios"),
        ("TOOK_UP", "took up", "pottery, rock climbing, salsa dancing, birdwatching, oil painting, chess, "
         "marathon running, sourdough baking, kayaking, knitting, photography, yoga, beekeeping, surfing"),
        ("VISITED", "visited", "the Louvre, Machu Picchu, Yellowstone, the Great Barrier Reef, Kyoto's temples, "
         "the Sahara, Iceland's glaciers, the Amalfi coast, Petra, the Grand Canyon, Banff, Angkor Wat"),
        ("ADOPTED", "adopted", "a beagle named Max, a tabby cat named Luna, two goldfish, a parrot named Kiwi, "
         "a rescue greyhound, a corgi named Biscuit, a black cat named Shadow, a rabbit named Clover"),
        ("STUDIED", "started studying", "marine biology, Japanese, architecture, data science, nursing, "
         "art history, mechanical engineering, philosophy, accounting, music theory"),
        ("BOUGHT", "bought", "a sailboat, a vintage guitar, an electric car, a house by the lake, a road bike, "
         "a telescope, a food truck, a cabin in the woods, a 3D printer, a piano"),
        ("PLAYS", "learned to play", "the violin, the drums, the cello, the ukulele, the saxophone, the flute, "
         "the harp, the trumpet"),
        ("READ", "read", "Dune, Beloved, The Hobbit, Middlemarch, Sapiens, Educated, Circe, The Road, "
         "Pachinko, Atomic Habits, Moby-Dick, The Overstory"),
        ("VOLUNTEERS_AT", "volunteered at", "the food bank, an animal shelter, the LGBTQ youth center, "
         "a refugee support group, the children's hospital, a community garden, the public radio station"),
        ("ATTENDED", "went to", "a Taylor Swift concert, the Berlin film festival, a pottery workshop, "
         "a friend's wedding in Goa, the Chicago marathon, a jazz festival, a coding bootcamp"),
        ("MET", "met", ""),  # objects: other people
    )
)
SCALE_USER = "bench_retrieval_scale"
SCALE_SIZES = (1_000, 10_000)
LARGE_SIZES = (1_000, 10_000, 100_000)
TARGET_P95_MS = {10_000: 50.0, 100_000: 250.0}
SINGLE_VALUED = ("LIVES_IN", "WORKS_AT")


@dataclass(frozen=True)
class BulkFact:
    subject: str
    predicate: str
    object: str
    text: str
    valid_at: datetime


def people() -> list[str]:
    return [f"{first} {last}" for first in FIRST for last in LAST]


def scale_facts(n: int, seed: int = 11) -> list[BulkFact]:
    """`n` distinct facts "<Person> <verb> <object> in <Month> <year>." (1,000 people)."""
    rng, names, seen, out = random.Random(seed), people(), set(), []
    while len(out) < n:
        person, (predicate, phrase, objects) = rng.choice(names), rng.choice(RELATIONS)
        obj = rng.choice(objects) if objects[0] else rng.choice([p for p in rng.sample(names, 2) if p != person])
        month, year = rng.randrange(12), rng.randrange(1995, 2025)
        text = f"{person} {phrase} {obj} in {MONTHS[month]} {year}."
        if text not in seen:
            seen.add(text)
            out.append(BulkFact(person, predicate, obj, text, datetime(year, month + 1, 1, tzinfo=timezone.utc)))
    return out


def fact_row(fact: BulkFact) -> dict:
    """One `add_facts` row: the sentence is the fact's text, its date its start."""
    return {"subject": fact.subject, "predicate": fact.predicate, "object": fact.object, "fact": fact.text,
            "valid_at": fact.valid_at, "single_valued": fact.predicate in SINGLE_VALUED}


def grow_graph(mem: Memory, pool: Sequence[BulkFact], start: int, stop: int, user: str = SCALE_USER) -> float:
    """Import pool[start:stop] through `Memory.add_facts` (embedding included); seconds taken."""
    began = time.perf_counter()
    mem.add_facts(user, [fact_row(f) for f in pool[start:stop]])
    return time.perf_counter() - began


QUERY_TEMPLATES = (
    "Where does {p} live now?", "Where did {p} live in {y}?", "When did {p} move to {city}?",
    "What hobbies has {p} taken up?", "Who did {p} meet in {m} {y}?", "What did {p} do in {y}?",
    "Which books has {p} read?", "Who works at {company}?", "Has anyone visited {place}?",
    "What instrument does {p} play?", "What pets does {p} have?", "Who volunteered at {org}?",
    "What did {p} buy?", "What is {p} studying these days?", "Which concerts or festivals did {p} go to?",
)


def scale_queries(n: int, seed: int = 5) -> list[str]:
    rng, names = random.Random(seed), people()
    objects = {predicate: objs for predicate, _, objs in RELATIONS}
    return [
        rng.choice(QUERY_TEMPLATES).format(
            p=rng.choice(names), y=rng.randrange(1995, 2025), m=rng.choice(MONTHS),
            city=rng.choice(objects["LIVES_IN"]), company=rng.choice(objects["WORKS_AT"]),
            place=rng.choice(objects["VISITED"]), org=rng.choice(objects["VOLUNTEERS_AT"]),
        )
        for _ in range(n)
    ]


def time_searches(mem: Memory, queries: Sequence[str], now: datetime) -> dict[str, float]:
    """First search (rebuilds the warm BM25 indexes), 5 warm-ups, then the timed rest.

    Each timed search is split into its own query embedding (the question, and the
    question with its names masked for abstention, in one embedder call:
    `MemoryPacket.timings_ms["embed"]`) and the rest (Cypher round trips, BM25,
    fusion, packet). The process's CPU time per search (`time.thread_time`, this
    thread: the embedder runs here) does not grow with the machine's load the way
    wall time does, so it tells an idle-machine figure from a loaded one.
    """
    first = time.perf_counter()
    mem.search(SCALE_USER, queries[0], now=now)
    first_ms = (time.perf_counter() - first) * 1000
    for query in queries[1:6]:
        mem.search(SCALE_USER, query, now=now)
    samples, embeds, rest, cpu = [], [], [], []
    for query in queries[6:]:
        start, cpu_start = time.perf_counter(), time.thread_time()
        packet = mem.search(SCALE_USER, query, now=now)
        samples.append(time.perf_counter() - start)
        cpu.append(time.thread_time() - cpu_start)
        embeds.append(packet.timings_ms.get("embed", 0.0) / 1000)
        rest.append(samples[-1] - embeds[-1])
    (p50, p95), (e50, e95), (r50, r95) = percentiles_ms(samples), percentiles_ms(embeds), percentiles_ms(rest)
    return {"first_search_ms": first_ms, "p50_ms": p50, "p95_ms": p95, "embed_p50_ms": e50, "embed_p95_ms": e95,
            "rest_p50_ms": r50, "rest_p95_ms": r95, "cpu_mean_ms": float(np.mean(cpu)) * 1000,
            "queries": len(samples), "load_1min": os.getloadavg()[0]}


def print_scale_row(size: int, f: dict[str, float]) -> None:
    target = TARGET_P95_MS.get(size)
    verdict = "-" if target is None else f"p95 <= {target:.0f} ms: {'met' if f['p95_ms'] <= target else 'MISSED'}"
    print(f"  {size:>8,}{f['facts']:>8,}{f['import_s']:>10.1f}{f['first_search_ms']:>10.0f}{f['p50_ms']:>9.1f}"
          f"{f['p95_ms']:>9.1f}{f['embed_p50_ms']:>11.1f}{f['embed_p95_ms']:>6.1f}{f['rest_p50_ms']:>10.1f}"
          f"{f['rest_p95_ms']:>6.1f}{f['cpu_mean_ms']:>9.1f}{f['load_1min']:>6.1f}  {verdict}")


def scale_latency(mem: Memory, sizes: Sequence[int] | None = None, timed_queries: int = 100) -> dict[int, dict]:
    """Part 3: grow one user's graph through `sizes` rows, timing `Memory.search` at each size."""
    sizes = sizes or (LARGE_SIZES if os.environ.get("GRAPHMEM_BENCH_100K") == "1" else SCALE_SIZES)
    header(f"retrieval latency: Memory.search (limit 10) at {', '.join(f'{n:,}' for n in sizes)} imported rows")
    pool, written, out = scale_facts(max(sizes)), 0, {}
    per_size, now = timed_queries + 6, datetime(2025, 1, 1, tzinfo=timezone.utc)
    queries = scale_queries(len(sizes) * per_size)
    print(f"  {'rows':>8}{'facts':>8}{'import s':>10}{'first ms':>10}{'p50 ms':>9}{'p95 ms':>9}"
          f"{'embed p50':>11}{'p95':>6}{'rest p50':>10}{'p95':>6}{'cpu ms':>9}{'load':>6}  target")
    for i, size in enumerate(sizes):
        import_s = grow_graph(mem, pool, written, size)
        written = size
        figures = {"import_s": import_s, "facts": mem.inspect().counts(SCALE_USER).facts}
        figures |= time_searches(mem, queries[i * per_size:(i + 1) * per_size], now)
        print_scale_row(size, figures)
        out[size] = figures
    print("  (embed: the query embedding inside search; rest: everything else; cpu ms: this thread's CPU per "
          "search, embedding included, which load inflates far less than wall time; load: 1-minute load average)")
    print(f"  (facts only, written by Memory.add_facts with their embeddings: no turns, so search ranks facts; "
          f"a row restating an open multi-valued fact merges into it; {'100k is opt-in: GRAPHMEM_BENCH_100K=1' if max(sizes) < 100_000 else 'with 100k'})")
    return out


# -- packet size (part 4) ----------------------------------------------------------

DATED_LINE = re.compile(r"^- \[\d{4}-\d{2}-\d{2} -> (\d{4}-\d{2}-\d{2}|\.\.\.)\] ")
SOURCED_LINE = re.compile(r"\| source: turns (?!- \|)[^|]+ \| confidence ")
ADMITTED_LINE = re.compile(r"\| confidence \d\.\d\d \| scope \S+ \| expires \S+ \| reason: (?!-$)\S")


def packet_size(mem: Memory, conversations: Sequence[Conversation], n: int = 50,
                label: str = "LoCoMo", categories: Sequence[int] | None = CATEGORIES) -> dict[str, float]:
    """Part 4: tokens of default packets (limit 10) and the dating/sourcing of their fact lines."""
    cases = [c for conv in conversations for c in cases_of(conv, categories)]
    if not cases:
        raise ValueError(f"no answerable {label} question to size a packet with")
    sample = cases[:: max(1, len(cases) // n)][:n]
    tokens, lines, turns = [], [], []
    for case in sample:
        packet = mem.search(case.user, case.question.question, now=case.question.question_time, limit=10)
        tokens.append(packet.tokens)
        lines.extend(f.line() for f in packet.facts)
        turns.append(len(packet.episodes))
    dated = sum(bool(DATED_LINE.match(line)) for line in lines)
    sourced = sum(bool(SOURCED_LINE.search(line)) for line in lines)
    both = sum(bool(DATED_LINE.match(line) and SOURCED_LINE.search(line)) for line in lines)
    admitted = sum(bool(ADMITTED_LINE.search(line)) for line in lines)
    share = (lambda k: k / len(lines) if lines else float("nan"))
    header(f"packet size: {len(sample)} {label} questions, limit 10, default budget")
    print(f"  tokens: max {max(tokens)}, mean {np.mean(tokens):.0f} (budget {TOKENS_PER_RESULT * 10}; estimate: "
          f"4 characters per token); per packet {len(lines) / len(sample):.1f} facts, {np.mean(turns):.1f} turns")
    print(f"  {len(lines)} fact lines: dated start {share(dated):.3f}, source turn id {share(sourced):.3f}, "
          f"both {share(both):.3f}; confidence, scope, expires and a reason {share(admitted):.3f}")
    return {"questions": len(sample), "tokens_max": max(tokens), "tokens_mean": float(np.mean(tokens)),
            "fact_lines": len(lines), "dated_share": share(dated), "sourced_share": share(sourced),
            "dated_and_sourced_share": share(both), "admission_share": share(admitted), "facts_per_packet": len(lines) / len(sample),
            "turns_per_packet": float(np.mean(turns))}


# -- the suite ------------------------------------------------------------------------


def run() -> dict[str, object]:
    """All parts in one temporary data dir; returns every figure printed."""
    conversations = load_locomo(LOCOMO)
    reporting = splits.select(conversations, "reporting")
    with tempfile.TemporaryDirectory() as tmp:
        figures: dict[str, object] = {"locomo": locomo_reporting(Path(tmp) / "locomo")}
        figures["longmemeval"] = longmemeval_pooled(Path(tmp) / "lme")
        embedder = warmed(default_embedder())
        graph_dir = Path(tmp) / "locomo" / "work" / "graphmem_graph"
        with Memory(data_dir=graph_dir, embedder=embedder) as mem:
            ingest_missing(mem, conversations)
            figures["abstention"] = calibrate(mem, conversations, user_of, cases_of)
            figures["packet"] = packet_size(mem, reporting)
        if figures["longmemeval"] is not None:
            lme = retrieval_run.load_dataset("longmemeval", LONGMEMEVAL, pooled=True).conversations
            with Memory(data_dir=Path(tmp) / "lme" / "work" / "graphmem_graph", embedder=embedder) as mem:
                figures["packet_longmemeval"] = packet_size(mem, lme, label="pooled LongMemEval", categories=None)
        with Memory(data_dir=Path(tmp) / "scale", embedder=embedder) as mem:
            figures["scale"] = scale_latency(mem)
    return figures


def run_latency() -> dict[int, dict]:
    """Part 3 alone (`python -m bench latency`): the scale graphs and their search timings."""
    with tempfile.TemporaryDirectory() as tmp, Memory(data_dir=Path(tmp) / "scale", embedder=warmed(default_embedder())) as mem:
        return scale_latency(mem)
