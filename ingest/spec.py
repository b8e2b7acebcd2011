"""What corpus modules declare: their files (:class:`FileSpec`), how records are keyed
(:class:`RecordKey`), in which :class:`Format` (delimiter-separated files with a
:class:`Delimited` option; gzip-compressed line files with ``compression="gzip"``), an
optional record check, and the corpus itself (:class:`CorpusSpec`).

This is the only ingest module a corpus module (``ingest/cosrec.py`` ...) imports; the
machinery that lands the declared files is in ``ingest/run.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum


class Format(str, Enum):
    """How a file is cut into records."""

    JSONL = "jsonl"  #: one JSON object per line
    JSON_ARRAY = "json_array"  #: one top-level JSON array, one record per element
    JSON_FILE = "json_file"  #: the whole file is one JSON object
    #: delimiter-separated values with RFC-4180 quoting; comma and a header row unless the
    #: FileSpec's ``delimited`` (:class:`Delimited`) declares another delimiter or the columns
    CSV = "csv"
    QRELS = "qrels"  #: TREC qrels: ``topic iteration doc_id grade`` per line


#: what ``FileSpec.compression`` may name: ``None`` (the file as it is) or ``"gzip"``
COMPRESSIONS = (None, "gzip")
#: the formats a gzip-compressed file may have (read as a stream of decompressed lines)
GZIP_FORMATS = frozenset({Format.JSONL, Format.QRELS, Format.CSV})


@dataclass(frozen=True)
class Delimited:
    """How a :attr:`Format.CSV` file separates its fields: ``delimiter`` (one character, e.g.
    ``"\\t"`` for TSV, ``";"`` or ``"|"``) and either a ``header`` row naming the columns or,
    with ``header=False``, the ``columns`` declared here (every line is then a record).
    Fields are quoted the RFC-4180 way (``"a ""b"", c"``) whatever the delimiter."""

    delimiter: str = ","
    header: bool = True
    columns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if len(self.delimiter) != 1 or self.delimiter in '"\r\n':
            raise ValueError(
                f"Delimited: the delimiter must be one character other than a quote or a line "
                f"break, not {self.delimiter!r}"
            )
        if self.header and self.columns:
            raise ValueError("Delimited: columns are declared only for files without a header")
        if not self.header and not self.columns:
            raise ValueError("Delimited: a file without a header needs its columns declared")
        if len(set(self.columns)) != len(self.columns):
            raise ValueError(f"Delimited: a column is named twice in {self.columns}")

    @property
    def name(self) -> str:
        """What rejects call the format: CSV, TSV or delimited text."""
        return {",": "CSV", "\t": "TSV"}.get(self.delimiter, "delimited text")


@dataclass(frozen=True)
class RecordKey:
    """How to get a record's own id (``record_key``).

    * ``single_key``: the only key of a one-key object ``{"<id>": value}`` (CoSRec); a record
      that is not a one-key object is rejected ("wrong top-level shape");
    * ``field``: the value of a field (JSON key, CSV column or qrels field) as a string;
      NULL when the record lacks it (the record still lands); a JSON record without it is
      keyed by the first of ``fallbacks`` it has;
    * ``relative_path``: the file's path relative to the corpus folder without ``.json``.
    """

    kind: str
    name: str | None = None
    fallbacks: tuple[str, ...] = ()

    @classmethod
    def single_key(cls) -> RecordKey:
        return cls("single_key")

    @classmethod
    def field(cls, name: str, *fallbacks: str) -> RecordKey:
        return cls("field", name, tuple(fallbacks))

    @classmethod
    def relative_path(cls) -> RecordKey:
        return cls("relative_path")

    def describe(self) -> str:
        if self.kind == "field":
            return f"field {self.name!r}"
        return {"single_key": "the single key", "relative_path": "path without .json"}[self.kind]


@dataclass
class CheckContext:
    """What a :attr:`FileSpec.check` sees besides the record: where it is, and ``state``, one
    dict per corpus and run shared by every checked file of the corpus. Checked files are read
    in file order (discovery order), so e.g. the first occurrence of an id can win."""

    source_path: str  #: relative to the corpus folder
    line_number: int | None  #: 1-based (JSONL, CSV, qrels); None for JSON arrays and files
    record_index: int | None  #: 0-based position in the file
    state: dict


#: ``check(record, context) -> reason | None``: ``record`` is the parsed payload of a record
#: that passed the reader (for JSON formats an object); a reason (one line) rejects it
RecordCheck = Callable[[object, CheckContext], "str | None"]


@dataclass(frozen=True)
class FileSpec:
    """One declared family of files: glob ``pattern`` (relative to the corpus folder,
    ``*`` within a path segment, ``**`` any number of segments) -> ``table`` in ``raw``.

    ``check`` (optional) judges each well-formed record (see :data:`RecordCheck`); a record it
    gives a reason for goes to ``raw.rejected_records`` verbatim with that reason. Because a
    check may relate records across files (``CheckContext.state``), a change to one checked
    file of a corpus re-reads all of them.

    ``delimited`` (:attr:`Format.CSV` only): the delimiter and header of the files, default
    comma-separated with a header row. ``compression="gzip"``: the files are gzip-compressed
    JSONL, qrels or CSV; they are read as a stream of decompressed lines (line numbers and
    verbatim text are those of the decompressed content, ``file_sha256`` that of the file on
    disk). A pattern ending in ``.gz`` must declare it."""

    pattern: str
    table: str
    format: Format
    key: RecordKey
    check: RecordCheck | None = None
    delimited: Delimited = Delimited()
    compression: str | None = None

    def __post_init__(self) -> None:
        if self.delimited != Delimited() and self.format is not Format.CSV:
            raise ValueError(f"{self.pattern}: delimited applies to Format.CSV only")
        if self.compression not in COMPRESSIONS:
            raise ValueError(
                f"{self.pattern}: compression {self.compression!r} is not one of {COMPRESSIONS}"
            )
        if self.compression and self.format not in GZIP_FORMATS:
            formats = ", ".join(sorted(f.value for f in GZIP_FORMATS))
            raise ValueError(f"{self.pattern}: gzip is read for the formats {formats} only")
        if self.pattern.endswith(".gz") and self.compression is None:
            raise ValueError(f"{self.pattern}: a .gz pattern declares compression='gzip'")

    def matches(self, rel_path: str) -> bool:
        return _glob_regex(self.pattern).match(rel_path) is not None


@dataclass(frozen=True)
class CorpusSpec:
    """A corpus: its name (the ``corpus`` column), folder under the data dir, files, hint."""

    name: str
    folder: str
    files: tuple[FileSpec, ...]
    absent_hint: str
    description: str = ""
    #: an optional corpus (``custom``): its absence is normal, neither missing nor reported
    optional: bool = False

    @classmethod
    def from_module(cls, module) -> CorpusSpec:
        doc = (module.__doc__ or "").strip().splitlines()
        return cls(
            name=module.CORPUS,
            folder=module.FOLDER,
            files=tuple(module.FILES),
            absent_hint=module.ABSENT_HINT,
            description=doc[0] if doc else "",
            optional=getattr(module, "OPTIONAL", False),
        )

    @property
    def tables(self) -> list[str]:
        return list(dict.fromkeys(f.table for f in self.files))

    def spec_for(self, rel_path: str) -> FileSpec | None:
        for spec in self.files:
            if spec.matches(rel_path):
                return spec
        return None


_GLOB_CACHE: dict[str, re.Pattern[str]] = {}


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a path glob: ``**`` spans segments, ``*``/``?`` stay within one segment."""
    rx = _GLOB_CACHE.get(pattern)
    if rx is not None:
        return rx
    out: list[str] = []
    parts = pattern.split("/")
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:[^/]+/)*")
            continue
        for ch in part:
            out.append("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch))
        if not last:
            out.append("/")
    rx = _GLOB_CACHE[pattern] = re.compile("".join(out) + r"\Z")
    return rx


__all__ = [
    "CheckContext",
    "CorpusSpec",
    "Delimited",
    "FileSpec",
    "Format",
    "RecordCheck",
    "RecordKey",
]
