"""The sentence embedder (all-MiniLM-L6-v2): the torch path for writes and a
numpy path that reads the same weights for a fast-starting CLI search."""
