"""Text and time-expression parsing shared by ingest and retrieval (below both):
hostile-text rules (`text`) and dates (`dates`)."""
