"""What a download is checked against before it counts: the pinned sha256/size (the registry,
LFS pointers), the sha256/size the server announced (the hub's ``X-Linked-Etag`` /
``X-Linked-Size``) and how the end of the body was known. Bytes that arrived but do not match
are deleted and never count as a success."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from csrwh.errors import CsrwhError
from csrwh.fetch.parts import hash_file, remove_part
from csrwh.fetch.sources import SOURCES_FILE, Pinned


@dataclass
class Downloaded:
    url: str  # upstream URL
    fetched_from: str  # URL actually used (mirror applied)
    path: Path
    sha256: str
    size: int
    headers: dict[str, str]
    verified: list[str] = field(default_factory=list)  # what the bytes were checked against

    def record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "url": self.url,
            "fetched_from": self.fetched_from,
            "sha256": self.sha256,
            "size": self.size,
            "verified": self.verified,
        }
        if self.headers.get("x-repo-commit"):
            rec["commit"] = self.headers["x-repo-commit"]
        return rec


def _check(
    got: tuple[str, int], pinned: Pinned, headers: dict[str, str], framing: str | None
) -> tuple[list[str], list[str]]:
    """(what the bytes were checked against, the problems found)."""
    got_sha, got_size = got
    linked = headers.get("x-linked-etag", "").strip('"').lower().removeprefix("w/").strip('"')
    linked_size = headers.get("x-linked-size", "").strip()
    problems: list[str] = []
    verified: list[str] = []
    if pinned.size is not None:
        verified.append("pinned size")
        if got_size != pinned.size:
            problems.append(f"size {got_size}, expected {pinned.size}")
    if pinned.sha256:
        verified.append("pinned sha256")
        if got_sha != pinned.sha256.lower():
            problems.append(f"sha256 {got_sha}, expected {pinned.sha256}")
    elif re.fullmatch(r"[0-9a-f]{64}", linked):
        verified.append("announced sha256")
        if got_sha != linked:
            problems.append(f"sha256 {got_sha}, the server announced {linked}")
    if linked_size.isdigit():
        verified.append("announced size")
        if got_size != int(linked_size):
            problems.append(f"size {got_size}, the server announced {linked_size}")
    if framing:
        verified.append(framing)
    return verified, problems


def verify(
    label: str,
    upstream: str,
    real: str,
    part: Path,
    pinned: Pinned,
    headers: dict[str, str],
    framing: str | None,
    self_check: str | None = None,
) -> Downloaded:
    """``part`` (downloaded from ``real``) as a Downloaded, or a CsrwhError (and ``part``
    deleted) when it does not match. A body that ends only when the connection closes, with no
    checksum or size to check it against, cannot be verified and is refused -- unless the
    content checks itself (``self_check``, e.g. a zip: its central directory and CRC-32s are
    checked on extraction)."""
    got_sha, got_size = hash_file(part)
    verified, problems = _check((got_sha, got_size), pinned, headers, framing)
    if not verified and self_check:
        verified.append(self_check)
    if not problems and not verified:
        problems.append(
            "it cannot be verified: the server sent no Content-Length (the body ends when the "
            "connection closes, so a cut-off body looks complete) and no sha256/size is pinned "
            f"for it in {SOURCES_FILE}"
        )
    if problems:
        remove_part(part)
        what = "failed verification" if verified else "was refused"
        raise CsrwhError(
            f"{label}: {real} {what} ({'; '.join(problems)})",
            hint=f"the download was corrupted, cut short or the upstream changed; fetch again "
            f"(or from a mirror that sends Content-Length), and if it persists check {SOURCES_FILE}",
        )
    return Downloaded(upstream, real, part, got_sha, got_size, headers, verified)
