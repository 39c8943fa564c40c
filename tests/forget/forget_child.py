"""Child process for the crash tests: forget a text, stopping at a named step.

    forget_child.py DATA_DIR USER TEXT STEP MODE

Prints ``SERVER <pid>``, then ``START`` just before the forget, ``AT <step>``
when the forget reaches STEP (a name `graphmem.forgetting.pipeline` logs at debug level),
and ``DONE`` at the end. MODE ``block`` sleeps at STEP until killed; ``pass``
only reports it, for kills that race the next step.
"""

import logging
import sys
import time

from graphmem import Memory

data_dir, user, text, stop_at, mode = sys.argv[1:6]


class StopAt(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        step = record.args[-1] if isinstance(record.args, tuple) and record.args else None
        if step == stop_at:
            print(f"AT {step}", flush=True)
            while mode == "block":
                time.sleep(3600)


forget_log = logging.getLogger("graphmem.forgetting.pipeline")
forget_log.setLevel(logging.DEBUG)
forget_log.addHandler(StopAt())

mem = Memory(data_dir=data_dir)
print(f"SERVER {mem.store.server_pid}", flush=True)
print("START", flush=True)
report = mem.forget(user, {"text": text})
print(f"DONE {report.episodes_deleted}", flush=True)
