"""The last few objects a search or a run builds and asks for again, kept by key.

A periodic stroke's search starts many strokes from the same model, a run asks for one start per
ski, and a study asks again with one number changed and changed back: what depends only on a few
numbers (a stance, a start model, the admissible states at touch-down) is built once per key and
kept, the most recently used last, the oldest dropped beyond ``size``.  A key holds every number
the kept object depends on, so a kept object is the one a new build would give, bit for bit.
"""
from __future__ import annotations

import threading

__all__ = ["KeptLast"]

_MISSING = object()


class KeptLast:
    """At most ``size`` values by key, the most recently asked for kept (a bounded LRU map).

    ``get(key, build)`` gives the kept value, or ``build()``'s, then kept; ``put(key, value)``
    keeps a value; ``peek(key)`` the kept value or None, without counting as a use.  A lock guards the map, not the build: threads may
    share one (two that miss the same key at once both build, and the later one is kept)."""

    def __init__(self, size: int):
        if not (isinstance(size, int) and size >= 1):
            raise ValueError(f"size: must be an integer >= 1, got {size!r}")
        self.size = size
        self._values = {}
        self._lock = threading.Lock()

    def get(self, key, build):
        with self._lock:
            value = self._values.pop(key, _MISSING)
        if value is _MISSING:
            value = build()
        with self._lock:
            self._values.pop(key, None)
            self._values[key] = value  # the most recently used last
            while len(self._values) > self.size:
                self._values.pop(next(iter(self._values)))
        return value

    def put(self, key, value) -> None:
        """Keep ``value`` under ``key`` (replacing what was kept), as the most recently used."""
        with self._lock:
            self._values.pop(key, None)
            self._values[key] = value
            while len(self._values) > self.size:
                self._values.pop(next(iter(self._values)))

    def peek(self, key):
        with self._lock:
            return self._values.get(key)

    def __len__(self) -> int:
        return len(self._values)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
