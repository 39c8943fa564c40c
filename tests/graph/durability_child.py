"""Child process for the durability test: write facts forever, acknowledging each."""

import sys

from graphmem import Memory

mem = Memory(data_dir=sys.argv[1])
mem.add_fact("u1", "me", "visited", "warmup", single_valued=False)
print(f"SERVER {mem.store.server_pid}", flush=True)
i = 0
while True:
    mem.add_fact("u1", "me", "visited", f"city{i}", single_valued=False)
    print(f"ACK {i}", flush=True)
    i += 1
