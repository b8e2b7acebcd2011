"""The limits every landed record is held to: its size in bytes and its JSON nesting depth.

A record past either is rejected verbatim with its file, line and the limit it passed; the rest
of its file lands. Settings: ``CSRWH_MAX_RECORD_BYTES`` and ``CSRWH_MAX_JSON_DEPTH``.
Details: docs/internals.md#ingest-limits
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import numpy as np

from ingest.errors import CsrwhError

MAX_RECORD_BYTES_ENV = "CSRWH_MAX_RECORD_BYTES"
MAX_JSON_DEPTH_ENV = "CSRWH_MAX_JSON_DEPTH"
#: the largest record of the real corpora (a RecLLMSim conversation file) is ~120 kB; a
#: CRSArena-Dial file is larger, but each of its array elements is a record. 16 MiB leaves
#: room (over 100 times) while keeping a build's staging far from its memory limit
DEFAULT_MAX_RECORD_BYTES = 16 * 2**20
#: the real corpora nest at most 6 levels (CoSRec's intents)
DEFAULT_MAX_JSON_DEPTH = 64
#: DuckDB's JSON functions recurse at most 128 levels; a limit at or above it would let a
#: record land that a later check cannot read
HIGHEST_MAX_JSON_DEPTH = 100

_SIZE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([kmg]i?b|b)?$")
_UNITS = {
    None: 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
}
#: a JSON string (its brackets are text), and everything but a bracket
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[^\[\]{}]+")
#: a byte's step in nesting depth: +1 for [ and {, -1 for ] and }
_STEP = np.zeros(256, np.int8)
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1


@dataclass(frozen=True)
class RecordLimits:
    max_bytes: int = DEFAULT_MAX_RECORD_BYTES
    max_depth: int = DEFAULT_MAX_JSON_DEPTH

    def size_problem(self, text: str | None, raw: bytes | None) -> str | None:
        """The reason a record of ``raw`` bytes (else ``text``, UTF-8) is too large, or None.
        Counts ``text``'s bytes without copying it unless its length cannot decide."""
        if raw is not None:
            size = len(raw)
        elif text is None or 4 * len(text) <= self.max_bytes:
            return None
        elif len(text) > self.max_bytes:
            size = len(text)  # at least this many bytes
        else:
            size = len(text.encode("utf-8", "surrogatepass"))
        if size <= self.max_bytes:
            return None
        return (
            f"record too large: {size:,} bytes, more than the limit of {self.max_bytes:,} "
            f"({MAX_RECORD_BYTES_ENV})"
        )

    def depth_problem(self, text: str | None) -> str | None:
        """The reason the JSON ``text`` nests deeper than the limit, or None. A text with no
        more brackets than the limit is not scanned."""
        if text is None or text.count("[") + text.count("{") <= self.max_depth:
            return None
        structure = _BRACKETS.sub("", _STRINGS.sub("", text)).encode("ascii", "ignore")
        steps = _STEP[np.frombuffer(structure, np.uint8)]
        if not len(steps) or int(np.cumsum(steps, dtype=np.int64).max()) <= self.max_depth:
            return None
        return (
            f"JSON nested too deeply: more than {self.max_depth} levels of arrays and objects "
            f"({MAX_JSON_DEPTH_ENV})"
        )


def _setting(name: str, default: int, parse) -> int:
    raw = os.environ.get(name, "").strip()
    return default if not raw else parse(raw)


def _bytes(raw: str) -> int:
    found = _SIZE.match(raw.lower().replace(" ", ""))
    value = float(found.group(1)) * _UNITS[found.group(2)] if found else 0
    if value < 1024:
        raise CsrwhError(
            f"{MAX_RECORD_BYTES_ENV}={raw!r} is not a size of at least 1 KiB",
            hint=f"use e.g. 64MiB or 500kB, or leave it unset for {DEFAULT_MAX_RECORD_BYTES:,} bytes",
            exit_code=2,
        )
    return int(value)


def _depth(raw: str) -> int:
    if not raw.isdigit() or not 1 <= int(raw) <= HIGHEST_MAX_JSON_DEPTH:
        raise CsrwhError(
            f"{MAX_JSON_DEPTH_ENV}={raw!r} is not a whole number from 1 to "
            f"{HIGHEST_MAX_JSON_DEPTH}",
            hint=f"leave it unset for {DEFAULT_MAX_JSON_DEPTH} (DuckDB's JSON functions stop at 128)",
            exit_code=2,
        )
    return int(raw)


def record_limits() -> RecordLimits:
    """The limits in force: :data:`MAX_RECORD_BYTES_ENV` and :data:`MAX_JSON_DEPTH_ENV`, else
    the defaults. A bad value is a one-line error."""
    return RecordLimits(
        max_bytes=_setting(MAX_RECORD_BYTES_ENV, DEFAULT_MAX_RECORD_BYTES, _bytes),
        max_depth=_setting(MAX_JSON_DEPTH_ENV, DEFAULT_MAX_JSON_DEPTH, _depth),
    )


__all__ = [
    "DEFAULT_MAX_JSON_DEPTH",
    "DEFAULT_MAX_RECORD_BYTES",
    "MAX_JSON_DEPTH_ENV",
    "MAX_RECORD_BYTES_ENV",
    "RecordLimits",
    "record_limits",
]
