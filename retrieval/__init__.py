"""Retrieval: query parsing, BM25, vectors, BFS, fusion, packets (graphmem.retrieval)."""
