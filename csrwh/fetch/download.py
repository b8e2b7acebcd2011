"""The one HTTP helper of ``csrwh fetch``: :func:`download` gets the first working URL into a
``.part`` file with requests and verifies it against everything known about it. What is retried
and how long to wait is one urllib3 ``Retry`` (:func:`retry_policy`); this module adds what
requests does not do: resume of a body cut short (``Range``), bounds on size and time, redirects
only to known hosts (:class:`~csrwh.fetch.redirects.Session`) and the verification."""

from __future__ import annotations

import errno
import json
import re
import socket
import time
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
import urllib3.exceptions
from rich.progress import Progress
from urllib3.util.retry import Retry

from csrwh.errors import CsrwhError
from csrwh.fetch.parts import meta_path, mirror_url, read_json, remove_part
from csrwh.fetch.redirects import RedirectRefused, Session
from csrwh.fetch.sources import Pinned
from csrwh.fetch.verify import Downloaded, verify
from csrwh.version import __version__

ATTEMPTS = 3  # tries per URL (tries that received data are not counted)
BACKOFF_SECONDS = 1.0  # urllib3's backoff factor: BACKOFF * 2**(n-1) after n failures in a row
RETRY_STATUSES = (408, 429, 500, 502, 503, 504)  # answers a later try may not repeat
RETRY_AFTER_MAX_SECONDS = 60.0  # a server's Retry-After is honoured up to this
TIMEOUT_SECONDS = 60.0  # per socket operation
MAX_FILE_BYTES = 4 << 30  # bound on one downloaded file
MAX_FILE_SECONDS = 3600.0  # bound on the wall time of one file (all tries and URLs)
CHUNK_BYTES = 1 << 16
USER_AGENT = f"csrwh/{__version__} (+fetch; python-requests)"


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
    """A body cut short or a stale resume: the next try resumes or starts over."""


class NoNetworkError(CsrwhError):
    """A corpus failed because no upstream host could be reached."""


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

    The HTTP framing (``Content-Length``, ``Content-Range`` or chunked encoding) makes a body
    cut short raise and be retried; the bytes are then checked by
    :func:`csrwh.fetch.verify.verify` (``self_check``: how the content checks itself). Each
    file gets ``MAX_FILE_BYTES`` and ``MAX_FILE_SECONDS`` (over all tries
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
        return verify(label, upstream, real, part, pinned, headers, framing, self_check)
    message = "; ".join(errors) or "no URL to try"
    if errors and offline:
        raise NoNetwork(message)
    raise DownloadFailed(message)


# --------------------------------------------------------------------------- the retry policy


class _Retry(Retry):
    """urllib3's Retry, except that a host that cannot be reached at all (DNS failure,
    connection refused, no route) is not retried: with no network, waiting only adds time; and
    a Retry-After longer than RETRY_AFTER_MAX_SECONDS is cut to it."""

    def increment(self, method=None, url=None, response=None, error=None, **kw):  # type: ignore[no-untyped-def, override]
        if error is not None and _unreachable(error, "") is not None:
            raise urllib3.exceptions.MaxRetryError(kw.get("_pool"), url or "", error) from error
        return super().increment(method, url, response, error, **kw)

    def get_retry_after(self, response):  # type: ignore[no-untyped-def]
        after = super().get_retry_after(response)
        return None if after is None else min(after, RETRY_AFTER_MAX_SECONDS)


def retry_policy() -> Retry:
    """What every download retries, how often and how long it waits: timeouts, dropped
    connections and the ``RETRY_STATUSES`` answers, ``ATTEMPTS`` tries in all, exponential
    backoff of ``BACKOFF_SECONDS`` (honouring ``Retry-After`` up to ``RETRY_AFTER_MAX_SECONDS``). The HTTPAdapter applies it to
    each request; :func:`_fetch_with_retries` applies the same policy to bodies cut short
    (and :mod:`csrwh.fetch.hub` to the Hub client)."""
    return _Retry(
        total=ATTEMPTS - 1,
        backoff_factor=BACKOFF_SECONDS,
        status_forcelist=RETRY_STATUSES,
        allowed_methods=frozenset({"GET"}),
        raise_on_status=False,  # the last answer is returned, :func:`_open` words the error
        raise_on_redirect=False,
        respect_retry_after_header=True,
    )


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
    retry = retry_policy()
    while True:
        before = part.stat().st_size if part.exists() else 0
        try:
            return attempt(url, part, progress, task, deadline=deadline, allowed=allowed)
        except Retryable as exc:
            if (part.stat().st_size if part.exists() else 0) > before:
                continue  # a try that received data does not count: resume at once
            try:
                retry = retry.increment("GET", url, error=exc)
            except urllib3.exceptions.MaxRetryError:
                raise DownloadFailed(f"{exc} (after {ATTEMPTS} tries)") from None
            if time.monotonic() + retry.get_backoff_time() >= deadline:
                raise DownloadFailed(f"{exc}; {_too_slow()}") from None
            retry.sleep()


def _too_slow() -> str:
    return f"gave up after {MAX_FILE_SECONDS:g} s (the time allowed per file, MAX_FILE_SECONDS)"


def _too_big(n: int) -> str:
    return (
        f"the file is larger than {MAX_FILE_BYTES:,} bytes (got {n:,}), the size allowed per "
        "file (MAX_FILE_BYTES)"
    )


def _causes(exc: BaseException | None):  # type: ignore[no-untyped-def]
    """``exc`` and what it wraps (requests -> urllib3 -> socket errors)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        nxt = getattr(exc, "reason", None)
        if not isinstance(nxt, BaseException):
            nxt = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else None
        exc = nxt or exc.__cause__ or exc.__context__


def _unreachable(exc: BaseException, url: str) -> str | None:
    """Why ``url``'s host cannot be reached at all, or None (a transient error)."""
    host = urllib.parse.urlsplit(url).hostname or url
    for cause in _causes(exc):
        if isinstance(cause, socket.gaierror):
            return f"no network: DNS lookup of {host} failed ({cause.strerror or cause})"
        if isinstance(cause, ConnectionRefusedError):
            return f"no network: {host} refused the connection"
        if isinstance(cause, OSError) and cause.errno in (
            errno.ENETUNREACH,
            errno.EHOSTUNREACH,
            errno.ENETDOWN,
        ):
            return f"no network: {host} is unreachable ({cause.strerror})"
    return None


def _open(session: Session, url: str, part: Path, deadline: float) -> tuple[Any, int]:
    """(response, resume offset) of one request for ``url`` (tried by the retry policy)."""
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
    try:
        resp = session.get(
            url, headers=headers, stream=True, timeout=min(TIMEOUT_SECONDS, max(left, 0.05))
        )
    except RedirectRefused as exc:
        raise DownloadFailed(str(exc)) from None
    except requests.RequestException as exc:
        why = _unreachable(exc, url)
        if why:
            raise NoNetwork(why) from None
        raise DownloadFailed(f"{_describe(exc)} (after {ATTEMPTS} tries)") from None
    if resp.status_code == 416 and offset > 0:
        resp.close()
        remove_part(part)  # stale partial file: start over
        raise Retryable("HTTP 416 on resume")
    if resp.status_code >= 400:
        resp.close()
        tries = f" (after {ATTEMPTS} tries)" if resp.status_code in RETRY_STATUSES else ""
        raise DownloadFailed(f"HTTP {resp.status_code} {resp.reason}{tries}")
    return resp, offset


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
    with Session(url, allowed, retry_policy()) as session:
        resp, offset = _open(session, url, part, deadline)
        with resp:
            return _receive(resp, url, part, offset, progress, task, deadline)


def _receive(
    resp: requests.Response,
    url: str,
    part: Path,
    offset: int,
    progress: Progress,
    task: Any,
    deadline: float,
) -> tuple[dict[str, str], str | None]:
    """Write the body of ``resp`` to ``part`` (appending at ``offset`` on a 206)."""
    total: int | None = None
    framing: str | None = None
    if resp.status_code == 206 and offset > 0:
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
        framing = "chunked transfer encoding"  # a cut-off chunked body raises
    elif total is not None:
        framing = framing or "content-length"
    if total is not None and total > MAX_FILE_BYTES:
        remove_part(part)
        raise DownloadFailed(_too_big(total))
    etag = resp.headers.get("ETag")
    validator = etag if etag and not etag.startswith("W/") else resp.headers.get("Last-Modified")
    meta_path(part).write_text(json.dumps({"url": url, "validator": validator}), encoding="utf-8")
    progress.update(task, total=total, completed=offset)
    received = offset
    with open(part, mode) as fh:
        while True:
            try:  # read1: returns as soon as data arrives; the bytes as sent
                chunk = resp.raw.read1(CHUNK_BYTES, decode_content=False)
            except (OSError, urllib3.exceptions.HTTPError) as exc:
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
    return Session.kept_headers(resp), framing


def _describe(exc: BaseException) -> str:
    causes = list(_causes(exc))
    root = causes[-1]
    return f"{type(root).__name__}: {root}" if str(root) else type(root).__name__
