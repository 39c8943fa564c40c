"""Forgetting, a capability: selectors, the cascade to derived memories, the
crash-safe journal, on-disk compaction, purge of expired facts and capacity
archiving. It reads and writes the graph only through `graphmem.graph`."""
