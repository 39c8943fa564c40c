"""The offline, deterministic extractor: regex rules over the sentences of a turn.

`RuleExtractor` is the default `Extractor` (ingest.extraction) when no LLM is
configured. It trades recall for precision and speed: it states only what a
sentence says in a shape it knows and it runs thousands of turns a second.

Rules are grouped by topic, each module holding its patterns beside the
handlers that read them: `residence` (homes and moves), `work`, `study`,
`family` (relatives, partners, break-ups), `pets`, `health` (diet, allergies,
foods), `preferences` (likes, dislikes, favourites), `possessions`, `plans`,
`events` (visits, events), `hobbies` (activities taken up and given up). The core they share: `grammar`
(subjects, names, verb phrases, hedges), `text` (sentence splitting, cutting
out objects), `drafts` (the sentence and draft types, shared helpers),
`timing` (dating drafts), `entities`, and `extractor` (the topic registry and
the per-turn loop).

How a sentence becomes facts:
1. a question ("...?") asserts nothing: only what its noun phrases presuppose is read
   (`presupposed`: "my boss at Acme", "my cat Juniper", "our flat in Leeds");
2. a topic's trigger finds a subject and a verb; its handler cuts out the
   object and drafts facts;
3. a draft takes the time expression of its own clause, or the nearest one
   before it ("Last month, I moved to ..."), resolved against the session time
   (`parsing.dates`); without one, it holds from the session time;
4. hedged statements ("if I lived in Paris", "I wish I had a dog") are
   skipped: if/wish/would/not/never/... earlier in the clause;
5. an object the rules are unsure of (cut short, ending in an adjective or a
   quantity word, a span of time as an employer) is not stored: precision
   before recall. An assistant's turn yields no facts (`rules.entities`).

Endings ("left", "quit", "sold", "gave up", "broke up", "graduated from", a pet
that passed away) close the open fact of the same slot. Negations end, they
never assert: "I don't live in Paris anymore" yields
LIVES_IN Paris with ``valid_at=None`` and ``invalid_at`` = the session time
(or the date said), so fact resolution can close the open LIVES_IN Paris. A
bare "I don't live in Paris" (no "anymore"/"no longer") yields nothing: it may
correct something never said.
"""

from graphmem.ingest.rules.extractor import RuleExtractor, extract_turn

__all__ = ["RuleExtractor", "extract_turn"]
