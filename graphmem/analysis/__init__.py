"""Read-only analysis of one user's memory, for analysts in Jupyter.

A capability beside `ingest` and `retrieval` (it imports neither): each module
reads the graph through the graph layer's read functions (`fact_repository.facts_at`,
`fact_repository.history`, `Inspector`) and turns it into something an analyst plots
or tabulates. `Memory.to_networkx`, `diff`, `timeline` and `communities` are
the entry points; results are pydantic models with a ``to_records()`` list of
plain dicts, so ``pandas.DataFrame(result.to_records())`` works when pandas is
installed (graphmem does not need it).

- `networkx_export`: the facts true at T as known at K as a `networkx.MultiDiGraph`;
- `diff`: what started, ended, was superseded and appeared between two dates;
- `timeline`: every fact version about one entity, flat;
- `communities`: Louvain groups of the current graph, stored so search can use them.
"""
