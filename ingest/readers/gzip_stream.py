"""gzip-compressed files as a stream of decompressed bytes, with Python's ``zlib``.

Memory is bounded by a block, never by the file; several members are read in turn, and a
truncated or corrupt stream ends with :class:`GzipBroken` after the bytes decompressed so far.
Details: docs/internals.md#ingest-readers-gzip_stream
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator

#: compressed bytes given to one inflate call
INPUT_BYTES = 64 * 1024
_GZIP = 16 + zlib.MAX_WBITS  # wbits for the gzip wrapper (header, CRC-32 and length checked)
_MAGIC = b"\x1f\x8b"


class GzipBroken(Exception):
    """Why a gzip stream cannot be read on (``truncated``: it ends early), in one line."""

    def __init__(self, message: str, truncated: bool) -> None:
        super().__init__(message)
        self.truncated = truncated


def gunzip_chunks(
    read: Callable[[int], bytes], out_bytes: int
) -> Iterator[tuple[bytes, bytes, GzipBroken | None]]:
    """(decompressed bytes, compressed bytes read for them, None) from ``read`` (a file's
    ``read``), at most ``out_bytes`` decompressed bytes at a time; when the stream breaks off or
    is corrupt, the rest of the file is read (not decompressed) and the last item is
    (b"", b"", :class:`GzipBroken`). Every byte ``read`` returned is in exactly one item, so
    the second parts joined are the file on disk (its hash and size)."""
    inflate = None  # None: between members (or before the first)
    pending = b""  # compressed input not given to ``inflate`` yet
    at_end = False  # ``read`` is exhausted
    total_out = 0
    broken: GzipBroken | None = None
    while broken is None:
        disk, out = b"", b""
        if len(pending) < len(_MAGIC) and not at_end:
            disk = read(INPUT_BYTES)
            at_end = not disk
            pending += disk
        if inflate is None:  # a member starts here, or padding, or the end
            pending = pending.lstrip(b"\0")  # zero padding between or after members
            if pending.startswith(_MAGIC):
                inflate = zlib.decompressobj(_GZIP)
            elif pending and (len(pending) >= len(_MAGIC) or at_end):
                what = "not a gzip file" if total_out == 0 else "bytes after a gzip member"
                broken = GzipBroken(f"corrupt gzip file: {what} (no gzip header)", False)
            elif at_end:
                if disk:
                    yield b"", disk, None
                return
        elif pending:
            piece, rest = pending[:INPUT_BYTES], pending[INPUT_BYTES:]
            try:
                out = inflate.decompress(piece, out_bytes)
            except zlib.error as exc:
                broken = GzipBroken(
                    f"corrupt gzip file: {exc} (after {total_out} decompressed bytes)", False
                )
            else:
                total_out += len(out)
                if inflate.eof:  # the member ended: what follows is another one, or padding
                    pending, inflate = inflate.unused_data + rest, None
                else:
                    pending = inflate.unconsumed_tail + rest
        elif at_end:
            broken = GzipBroken(
                "truncated file: the gzip stream ends before its end-of-stream marker", True
            )
        if out or disk:
            yield out, disk, None
    while disk := read(INPUT_BYTES):  # the rest of the file, for its hash and size
        yield b"", disk, None
    yield b"", b"", broken


def broken_reason(reason: str, rel: str, line: int, n_read: int) -> str:
    """The one-line error of the reject a broken stream leaves: what was read of line ``line``
    of file ``rel``, where reading stopped."""
    return (
        f"{reason}: {rel} cannot be read from line {line} on ({n_read} bytes of that line "
        "were read; the lines before it land)"
    )


__all__ = ["INPUT_BYTES", "GzipBroken", "broken_reason", "gunzip_chunks"]
