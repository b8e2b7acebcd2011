"""The one HTTP helper of ``csrwh fetch``: :func:`download` gets the first working URL into a
``.part`` file (retries with backoff, resume with ``Range``, bounded size and time, redirects
only to known hosts) and verifies it against everything known about it."""

from __future__ import annotations

import errno
import http.client
import json
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.progress import Progress

from csrwh import __version__
from csrwh.errors import CsrwhError
from csrwh.fetch.parts import (  # noqa: F401 - meta_path, remove_corpus_parts: API
    hash_file,
    meta_path,
    mirror_url,
    part_path,
    read_json,
    remove_corpus_parts,
    remove_part,
)
from csrwh.fetch.redirects import (  # noqa: F401 - allowed_hosts, host_allowed: API
    DEFAULT_REDIRECT_HOSTS,
    RecordingRedirects,
    RedirectRefused,
    allowed_hosts,
    host_allowed,
    opener,
)
from csrwh.fetch.sources import SOURCES_FILE, Pinned

ATTEMPTS = 3  # tries per URL (tries that received data are not counted)
BACKOFF_SECONDS = 1.0  # sleep BACKOFF * 2**(n-1) before the n-th retry
TIMEOUT_SECONDS = 60.0  # per socket operation
MAX_FILE_BYTES = 4 << 30  # bound on one downloaded file
MAX_FILE_SECONDS = 3600.0  # bound on the wall time of one file (all tries and URLs)
CHUNK_BYTES = 1 << 16
USER_AGENT = f"csrwh/{__version__} (+fetch; python-urllib)"


@dataclass
class Ctx:
    """What every download of one fetch run shares."""

    data_dir: Path
    mirror: str | None
    progress: Progress
    allowed_hosts: tuple[str, ...] = ()  # redirect targets besides the requested host


class DownloadFailed(Exception):
    """A URL did not work (not retried further)."""


class NoNetwork(DownloadFailed):
    """The host cannot be reached at all (DNS failure, connection refused, no route):
    retrying would only add waiting."""


class Retryable(Exception):
    pass


class NoNetworkError(CsrwhError):
    """A corpus failed because no upstream host could be reached."""


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


# --------------------------------------------------------------------------- verified download


def download_or_raise(
    corpus: str,
    label: str,
    urls: list[str],
    part: Path,
    ctx: Ctx,
    pinned: Pinned,
    *,
    hint: str,
    self_check: str | None = None,
) -> Downloaded:
    """:func:`download`, its failures turned into a CsrwhError with ``hint``."""
    try:
        return download(corpus, label, urls, part, ctx, pinned, self_check=self_check)
    except NoNetwork as exc:
        raise NoNetworkError(f"{label}: download failed: {exc}", hint=hint) from None
    except DownloadFailed as exc:
        raise CsrwhError(f"{label}: download failed: {exc}", hint=hint) from None


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


def download(
    corpus: str,
    label: str,
    urls: list[str],
    part: Path,
    ctx: Ctx,
    pinned: Pinned,
    *,
    self_check: str | None = None,
) -> Downloaded:
    """Download the first URL of ``urls`` that works into ``part`` and verify it.

    Every download is checked against everything known about it: the pinned sha256/size
    (the registry, LFS pointers), the sha256/size the server announces (hub
    ``X-Linked-Etag``/``X-Linked-Size``) and the HTTP framing (``Content-Length``,
    ``Content-Range`` or chunked encoding: a body cut short raises and is retried). A body
    that ends only when the connection closes, with no checksum or size to check it
    against, cannot be verified and is refused -- unless the content checks itself
    (``self_check``, e.g. a zip: its central directory and CRC-32s are checked on
    extraction). Each file gets ``MAX_FILE_BYTES`` and ``MAX_FILE_SECONDS`` (over all tries
    and URLs). Raises DownloadFailed (NoNetwork when no URL's host could be reached) when no
    URL worked, CsrwhError when the bytes do not verify.
    """
    errors: list[str] = []
    offline = True
    deadline = time.monotonic() + MAX_FILE_SECONDS
    for upstream in urls:
        real = mirror_url(upstream, ctx.mirror)
        try:
            headers, framing = _fetch_with_retries(
                real, part, label, ctx.progress, deadline=deadline, allowed=ctx.allowed_hosts
            )
        except DownloadFailed as exc:
            offline = offline and isinstance(exc, NoNetwork)
            errors.append(f"{real}: {exc}")
            continue
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
    message = "; ".join(errors) or "no URL to try"
    if errors and offline:
        raise NoNetwork(message)
    raise DownloadFailed(message)


# --------------------------------------------------------------------------- tries


def _fetch_with_retries(
    url: str,
    part: Path,
    label: str,
    progress: Progress,
    *,
    deadline: float | None = None,
    allowed: Iterable[str] = (),
) -> tuple[dict[str, str], str | None]:
    """(kept headers, how the body's end was known) of a complete download of ``url``."""
    deadline = time.monotonic() + MAX_FILE_SECONDS if deadline is None else deadline
    meta = read_json(meta_path(part))
    if part.exists() and (not meta or meta.get("url") != url):
        remove_part(part)  # partial file of another URL: start over
    task = progress.add_task(label, total=None)
    failures = 0
    while True:
        before = part.stat().st_size if part.exists() else 0
        try:
            return attempt(url, part, progress, task, deadline=deadline, allowed=allowed)
        except Retryable as exc:
            after = part.stat().st_size if part.exists() else 0
            if after <= before:
                failures += 1  # a try that received data does not count
            if failures >= ATTEMPTS:
                raise DownloadFailed(f"{exc} (after {ATTEMPTS} tries)") from None
            pause = BACKOFF_SECONDS * 2 ** max(failures - 1, 0) if BACKOFF_SECONDS > 0 else 0.0
            if time.monotonic() + pause >= deadline:
                raise DownloadFailed(f"{exc}; {_too_slow()}") from None
            if pause > 0:
                time.sleep(pause)


def _too_slow() -> str:
    return f"gave up after {MAX_FILE_SECONDS:g} s (the time allowed per file, MAX_FILE_SECONDS)"


def _too_big(n: int) -> str:
    return (
        f"the file is larger than {MAX_FILE_BYTES:,} bytes (got {n:,}), the size allowed per "
        "file (MAX_FILE_BYTES)"
    )


def _unreachable(exc: BaseException, url: str) -> str | None:
    """Why ``url``'s host cannot be reached at all, or None (a transient error)."""
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    host = urllib.parse.urlsplit(url).hostname or url
    if isinstance(reason, socket.gaierror):
        return f"no network: DNS lookup of {host} failed ({reason.strerror or reason})"
    if isinstance(reason, ConnectionRefusedError):
        return f"no network: {host} refused the connection"
    if isinstance(reason, OSError) and reason.errno in (
        errno.ENETUNREACH,
        errno.EHOSTUNREACH,
        errno.ENETDOWN,
    ):
        return f"no network: {host} is unreachable ({reason.strerror})"
    return None


def _open(url: str, part: Path, deadline: float, allowed: Iterable[str]):  # type: ignore[no-untyped-def]
    """(response, resume offset, redirect recorder) of one request for ``url``."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise DownloadFailed(_too_slow())
    offset = part.stat().st_size if part.exists() else 0
    meta = read_json(meta_path(part)) or {}
    headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "identity"}
    if offset > 0:
        headers["Range"] = f"bytes={offset}-"
        if meta.get("validator"):
            headers["If-Range"] = meta["validator"]
    url_opener, redirects = opener(url, allowed)
    try:
        resp = url_opener.open(
            urllib.request.Request(url, headers=headers),
            timeout=min(TIMEOUT_SECONDS, max(left, 0.05)),
        )
    except RedirectRefused as exc:
        raise DownloadFailed(str(exc)) from None
    except urllib.error.HTTPError as exc:
        exc.close()
        if exc.code == 416 and offset > 0:
            remove_part(part)  # stale partial file: start over
            raise Retryable("HTTP 416 on resume") from None
        if exc.code >= 500 or exc.code in (408, 429):
            raise Retryable(f"HTTP {exc.code} {exc.reason}") from None
        raise DownloadFailed(f"HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        why = _unreachable(exc, url)
        if why:
            raise NoNetwork(why) from None
        raise Retryable(_describe(exc)) from None
    return resp, offset, redirects


def attempt(
    url: str,
    part: Path,
    progress: Progress,
    task: Any,
    *,
    deadline: float | None = None,
    allowed: Iterable[str] = (),
) -> tuple[dict[str, str], str | None]:
    """One try at ``url`` (resuming ``part``); raises Retryable for what a retry may fix."""
    deadline = time.monotonic() + MAX_FILE_SECONDS if deadline is None else deadline
    resp, offset, redirects = _open(url, part, deadline, allowed)
    with resp:
        total: int | None = None
        framing: str | None = None
        if resp.status == 206 and offset > 0:
            match = re.match(r"bytes (\d+)-\d+/(\d+|\*)", resp.headers.get("Content-Range", ""))
            if not match or int(match.group(1)) != offset:
                remove_part(part)
                raise Retryable("server sent an unexpected byte range")
            total = int(match.group(2)) if match.group(2) != "*" else None
            framing = "content-range" if total is not None else None
            mode = "ab"
        else:
            offset = 0
            mode = "wb"
            length = resp.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
        if total is None and "chunked" in resp.headers.get("Transfer-Encoding", "").lower():
            framing = "chunked transfer encoding"  # a cut-off chunked body raises IncompleteRead
        elif total is not None:
            framing = framing or "content-length"
        if total is not None and total > MAX_FILE_BYTES:
            remove_part(part)
            raise DownloadFailed(_too_big(total))
        etag = resp.headers.get("ETag")
        validator = (
            etag if etag and not etag.startswith("W/") else resp.headers.get("Last-Modified")
        )
        meta_path(part).write_text(
            json.dumps({"url": url, "validator": validator}), encoding="utf-8"
        )
        progress.update(task, total=total, completed=offset)
        received = offset
        read = getattr(resp, "read1", resp.read)  # returns as soon as data arrives
        with open(part, mode) as fh:
            while True:
                try:
                    chunk = read(CHUNK_BYTES)
                except (OSError, http.client.HTTPException) as exc:
                    if time.monotonic() >= deadline:
                        raise DownloadFailed(_too_slow()) from None
                    raise Retryable(
                        f"connection lost after {received} bytes ({_describe(exc)})"
                    ) from None
                if not chunk:
                    break
                fh.write(chunk)
                received += len(chunk)
                progress.update(task, completed=received)
                if received > MAX_FILE_BYTES:
                    fh.close()
                    remove_part(part)
                    raise DownloadFailed(_too_big(received))
                if time.monotonic() >= deadline:
                    raise DownloadFailed(_too_slow())
        if total is not None and received < total:
            raise Retryable(f"connection closed after {received} of {total} bytes")
        progress.update(task, total=received, completed=received)
        seen = dict(redirects.seen)
        for key in RecordingRedirects.KEEP:
            value = resp.headers.get(key)
            if value:
                seen.setdefault(key, value)
        return seen, framing


def _describe(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.URLError) and not isinstance(exc, urllib.error.HTTPError):
        return f"connection error: {exc.reason}"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
