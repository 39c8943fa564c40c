"""Graph schema: node and edge models, indexes, time predicates (graphmem.schema)."""
