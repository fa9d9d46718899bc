"""Performance helpers for programs that run the pipeline (the CLI, the benchmarks).

`paused_gc` suspends the cyclic garbage collector while a program allocates millions of
acyclic objects (findings, tuples, dicts): the collector would otherwise rescan the young
heap thousands of times for nothing, which costs about as much as the work itself.
Reference counting still frees everything; the collector resumes afterwards. The collector
is process-wide, so only a program decides this (`quorum` pauses it for a whole command);
library functions never switch it off behind their caller's back.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic collector for the duration, restoring its previous state."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
