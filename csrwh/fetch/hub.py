"""Dataset-hub files (Hugging Face, ModelScope as fallback): each file of the upstream is
downloaded, checked to be JSON where it should be, and saved under its local name.

A Hugging Face file (an upstream URL ``https://huggingface.co/datasets/<repo>/resolve/<rev>/
<path>``) is fetched with ``huggingface_hub`` from ``$HF_ENDPOINT`` (its own variable; default
https://huggingface.co): the file's metadata first (commit, sha256 and size as the Hub announces
them; the size bound and the redirect hosts are checked on it), then ``hf_hub_download`` of that
commit into a folder of our own inside the data folder (``local_dir`` and ``cache_dir`` both
there, Xet off: nothing is written under ``~/.cache``), retried by
:func:`csrwh.fetch.download.retry_policy`. With a mirror (``CSRWH_MIRROR``, a plain file server
without the Hub's API) and for the other URLs, :func:`csrwh.fetch.download.download` is used.
Either way the bytes are verified by :func:`csrwh.fetch.verify.verify`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import shutil
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

import urllib3.exceptions
from rich.progress import Progress

from csrwh.errors import CsrwhError
from csrwh.fetch import download as http
from csrwh.fetch.download import (
    Ctx,
    DownloadFailed,
    NoNetwork,
    NoNetworkError,
    download,
    download_or_raise,
)
from csrwh.fetch.files import Built
from csrwh.fetch.parts import part_path, remove_part
from csrwh.fetch.redirects import host_allowed
from csrwh.fetch.sources import HubFile, HubFiles, Pinned
from csrwh.fetch.verify import Downloaded, verify
from csrwh.version import __version__

ENDPOINT_ENV = "HF_ENDPOINT"
DEFAULT_ENDPOINT = "https://huggingface.co"
HF_URL = re.compile(
    r"https://huggingface\.co/datasets/(?P<repo>[^/]+/[^/]+)/resolve/(?P<revision>[^/]+)/(?P<path>.+)"
)


def build_hub_files(src: HubFiles, ctx: Ctx, work: Path) -> Built:
    """Download every file of ``src`` into ``work``."""
    title = src.title
    target = ctx.data_dir / src.corpus
    renamed = [f"{f.remote} as {f.local}" for f in src.files if f.remote != f.local]
    hint = (
        f"no internet? download the files from {src.homepage or src.url_templates[0]} and copy "
        f"them into {target}/ as {src.layout or 'the upstream layout'}"
        + (f" (save {', '.join(renamed)})" if renamed else "")
    )
    if ctx.mirror:  # the mirror failed, not the internet
        hint = (
            f"the mirror {ctx.mirror} (CSRWH_MIRROR) did not serve the files: check that it "
            "holds <mirror>/<host>/<path> and is up, or unset CSRWH_MIRROR to fetch from the upstream"
        )
    source: dict[str, Any] = {
        "kind": "hub_files",
        "homepage": src.homepage,
        "revision": src.revision,
        "urls": [],
        "mirror": ctx.mirror,
    }
    built = Built(source=source)
    commits: set[str] = set()
    for item in src.files:
        urls = src.urls(item)
        source["urls"].append(urls[0])
        part = part_path(ctx.data_dir, src.corpus, urls[0])
        dl = _download_item(src, item, urls, part, ctx, hint)
        if item.local.endswith((".jsonl", ".json")) and not _looks_like_json(dl.path):
            remove_part(part)
            raise CsrwhError(
                f"{title}: {dl.fetched_from} did not return JSON (an error or login page?)",
                hint=hint,
            )
        dest = work / item.local
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(dl.path, dest)
        remove_part(part)
        built.downloads.append(
            {**dl.record(), "upstream_path": item.remote, "saved_as": item.local}
        )
        if dl.headers.get("x-repo-commit"):
            commits.add(dl.headers["x-repo-commit"])
    if len(commits) == 1:
        source["commit"] = commits.pop()
    elif commits:
        source["commits"] = sorted(commits)
    return built


def _download_item(
    src: HubFiles, item: HubFile, urls: list[str], part: Path, ctx: Ctx, hint: str
) -> Downloaded:
    """The first of ``urls`` that works: a Hugging Face URL through huggingface_hub (unless a
    mirror is set), the others through :func:`csrwh.fetch.download.download`."""
    label = f"{src.title} {item.remote}"
    match = None if ctx.mirror else HF_URL.fullmatch(urls[0])
    if match is None:
        return download_or_raise(src.corpus, label, urls, part, ctx, item.pinned, hint=hint)
    failures: list[DownloadFailed] = []
    try:
        return hub_download(urls[0], match, part, ctx, item.pinned, label)
    except DownloadFailed as exc:
        failures.append(exc)
    if len(urls) > 1:
        try:
            return download(src.corpus, label, urls[1:], part, ctx, item.pinned)
        except DownloadFailed as exc:
            failures.append(exc)
    offline = all(isinstance(f, NoNetwork) for f in failures)
    raise (NoNetworkError if offline else CsrwhError)(
        f"{label}: download failed: {'; '.join(map(str, failures))}", hint=hint
    )


# --------------------------------------------------------------------------- huggingface_hub


def hub_download(
    upstream: str, match: re.Match[str], part: Path, ctx: Ctx, pinned: Pinned, label: str
) -> Downloaded:
    """``upstream`` (an HF_URL match) via huggingface_hub into ``part``, verified. Raises
    DownloadFailed (NoNetwork: the endpoint cannot be reached) or CsrwhError (bad bytes)."""
    import httpx2  # huggingface_hub's HTTP client
    from huggingface_hub import hf_hub_url

    endpoint = (os.environ.get(ENDPOINT_ENV) or DEFAULT_ENDPOINT).rstrip("/")
    repo, revision, path = match.group("repo", "revision", "path")
    url = hf_hub_url(repo, path, repo_type="dataset", revision=revision, endpoint=endpoint)
    folder = part.with_name(part.name + ".hub")  # huggingface_hub's local_dir and cache_dir
    deadline = time.monotonic() + http.MAX_FILE_SECONDS
    retry = http.retry_policy()
    shutil.rmtree(folder, ignore_errors=True)  # left by a killed run
    try:
        while True:
            try:
                meta, local = _hub_once(url, repo, path, endpoint, folder, ctx, label, deadline)
                break
            except (httpx2.HTTPError, OSError) as exc:
                if not _transient(exc):
                    raise DownloadFailed(f"{url}: {_describe(exc)}") from None
                try:
                    retry = retry.increment("GET", url, error=exc)
                except urllib3.exceptions.MaxRetryError:
                    why = http._unreachable(exc, url)
                    if why:
                        raise NoNetwork(f"{url}: {why}") from None
                    tries = f"after {http.ATTEMPTS} tries"
                    raise DownloadFailed(f"{url}: {_describe(exc)} ({tries})") from None
                if time.monotonic() + retry.get_backoff_time() >= deadline:
                    raise DownloadFailed(f"{url}: {_describe(exc)}; {http._too_slow()}") from None
                retry.sleep()
        os.replace(local, part)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    headers = {
        "x-repo-commit": meta.commit_hash or "",
        "x-linked-etag": meta.etag or "",
        "x-linked-size": "" if meta.size is None else str(meta.size),
    }
    return verify(label, upstream, url, part, pinned, headers, framing=None)


def _hub_once(
    url: str,
    repo: str,
    path: str,
    endpoint: str,
    folder: Path,
    ctx: Ctx,
    label: str,
    deadline: float,
) -> tuple[Any, str]:
    """(the Hub's metadata of ``url``, the downloaded file): one try."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_download

    meta = get_hf_file_metadata(url, token=False, timeout=http.TIMEOUT_SECONDS, endpoint=endpoint)
    if not meta.commit_hash:
        raise DownloadFailed(
            f"{url}: not a Hugging Face Hub endpoint (no X-Repo-Commit header); a plain file "
            "server is a mirror (CSRWH_MIRROR), not HF_ENDPOINT"
        )
    if meta.size is not None and meta.size > http.MAX_FILE_BYTES:
        raise DownloadFailed(f"{url}: {http._too_big(meta.size)}")
    origin = urllib.parse.urlsplit(url).hostname or ""
    host = (urllib.parse.urlsplit(meta.location).hostname or "").lower()
    if host != origin and not host_allowed(host, ctx.allowed_hosts):
        raise DownloadFailed(
            f"{url}: refused a redirect to {meta.location}: host {host} is not in the upstream "
            "list (add it to redirect_hosts in ingest/corpora.toml if it is legitimate)"
        )
    with _plain_and_quiet():
        local = hf_hub_download(
            repo,
            path,
            repo_type="dataset",
            revision=meta.commit_hash,  # the commit the metadata is of
            endpoint=endpoint,
            local_dir=folder,
            cache_dir=folder / ".cache",
            token=False,
            library_name="csrwh",
            library_version=__version__,
            etag_timeout=http.TIMEOUT_SECONDS,
            tqdm_class=functools.partial(_Bar, ctx.progress, label, deadline),  # type: ignore[arg-type]
        )
    return meta, str(local)


@contextlib.contextmanager
def _plain_and_quiet() -> Iterator[None]:
    """Plain HTTP downloads (hf_xet keeps a chunk cache under ~/.cache/huggingface/xet) and no
    log lines of huggingface_hub's own (a retry is fetch's business; a failure is its error)."""
    from huggingface_hub import constants

    log = logging.getLogger("huggingface_hub")
    before = constants.HF_HUB_DISABLE_XET, log.level
    constants.HF_HUB_DISABLE_XET = True
    log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        constants.HF_HUB_DISABLE_XET = before[0]
        log.setLevel(before[1])


class _Bar:
    """The progress bar huggingface_hub drives (its ``tqdm_class``): shows the download in
    fetch's progress and stops it at MAX_FILE_BYTES or MAX_FILE_SECONDS."""

    def __init__(
        self,
        progress: Progress,
        label: str,
        deadline: float,
        *,
        total: int | None = None,
        initial: int = 0,
        **_: Any,
    ) -> None:
        if total is not None and total > http.MAX_FILE_BYTES:
            raise DownloadFailed(http._too_big(total))
        self.progress, self.deadline, self.n = progress, deadline, initial
        self.task = progress.add_task(label, total=total, completed=initial)

    def update(self, n: int = 1) -> None:
        self.n += n
        self.progress.update(self.task, completed=self.n)
        if self.n > http.MAX_FILE_BYTES:
            raise DownloadFailed(http._too_big(self.n))
        if time.monotonic() >= self.deadline:
            raise DownloadFailed(http._too_slow())

    def close(self) -> None:
        pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _transient(exc: BaseException) -> bool:
    """Whether a later try may succeed: a network error, or an answer in RETRY_STATUSES."""
    import httpx2

    response = getattr(exc, "response", None)
    if response is not None:
        return response.status_code in http.RETRY_STATUSES
    return isinstance(exc, httpx2.TransportError)


def _describe(exc: BaseException) -> str:
    response = getattr(exc, "response", None)
    if response is not None:
        return f"HTTP {response.status_code} {response.reason_phrase}"
    return " ".join(str(exc).split()) or type(exc).__name__


def _looks_like_json(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head == b"" or head[:1] in (b"{", b"[")
