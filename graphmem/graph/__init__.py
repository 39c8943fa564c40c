"""The graph layer: everything persisted under the data dir (the embedded
FalkorDB server, one graph per user, the LLM reply cache) and the only code that
speaks Cypher. It imports `graphmem.schema` and `graphmem.parsing` and nothing above."""
