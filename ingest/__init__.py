"""Ingestion: episodes, extractors, temporal, entity and fact resolution (graphmem.ingest)."""
