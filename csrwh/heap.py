"""The build's Python heap: keep the garbage collector off the objects that live through a phase.

A full collection visits every object Python tracks. In a build those are mostly dbt's
manifest and the modules of dbt, its adapters and Great Expectations (some 285,000 objects on
the real corpora, most alive until the phase ends), and each full collection, Python's own or
:func:`csrwh.pipeline.dbt_runner.return_freed_memory`'s after a heavy model, took 0.25-0.5 s
with every thread of the process stopped: about 3 s of a one-record rebuild's dbt phase and
1.5 s of its gate. :class:`FrozenHeap` moves the objects alive at a
chosen moment out of the collector's reach (``gc.freeze``) and hands them back when the phase is
over (``gc.unfreeze``); what the phase creates is collected as before, and the frozen objects
are still freed by reference counting. Nothing is frozen when something else in the process
already froze objects (their owner decides when to thaw them).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["FrozenHeap", "frozen_heap"]


class FrozenHeap:
    """``freeze()`` (any number of times) until ``thaw()``; see the module doc."""

    def __init__(self) -> None:
        self.owned = False

    def freeze(self) -> None:
        """Collect, then move every object alive now out of the collector's reach."""
        if not self.owned:
            if gc.get_freeze_count() != 0:  # someone else's: leave the heap as they set it
                return
            self.owned = True
        gc.collect()  # the garbage so far is freed, not frozen with the living
        gc.freeze()

    def thaw(self) -> None:
        """Hand the frozen objects back to the collector (cycles among them are collected by
        its next full collection)."""
        if self.owned:
            gc.unfreeze()
            self.owned = False


@contextmanager
def frozen_heap() -> Iterator[FrozenHeap]:
    """The objects alive on entry are frozen for the block, thawed on exit (also on error)."""
    heap = FrozenHeap()
    heap.freeze()
    try:
        yield heap
    finally:
        heap.thaw()
