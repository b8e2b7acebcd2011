"""Dataset-hub files (Hugging Face, ModelScope as fallback): each file of the upstream is
downloaded, checked to be JSON where it should be, and saved under its local name."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from csrwh.errors import CsrwhError
from csrwh.fetch.download import Ctx, download_or_raise, part_path, remove_part
from csrwh.fetch.files import Built
from csrwh.fetch.sources import HubFiles


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
        dl = download_or_raise(
            src.corpus, f"{title} {item.remote}", urls, part, ctx, item.pinned, hint=hint
        )
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


def _looks_like_json(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head == b"" or head[:1] in (b"{", b"[")
