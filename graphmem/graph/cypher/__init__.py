"""Cypher builders, grouped by the aggregate they touch: pure functions returning a
`Query` (text + parameters).

Every value a user can influence travels in `params`; the Cypher text is built
only from constants, field names of our own models and the named time
predicates of `schema.time`. The store runs these; nothing here does I/O.

Callers import the package (`from graphmem.graph import cypher as q`) and call
`q.create_fact(...)`; the modules say where each builder lives:
`meta` (graph metadata), `episodes`, `entities`, `facts`, `vectors` (re-embedding), and the read-only
`forgetting` and `inspection` sets.
"""

from graphmem.graph.cypher.entities import *  # noqa: F403
from graphmem.graph.cypher.episodes import *  # noqa: F403
from graphmem.graph.cypher.facts import *  # noqa: F403
from graphmem.graph.cypher.meta import *  # noqa: F403
from graphmem.graph.cypher.query import Query  # noqa: F401
from graphmem.graph.cypher.vectors import *  # noqa: F403
