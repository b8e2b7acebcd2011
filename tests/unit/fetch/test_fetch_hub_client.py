"""csrwh.fetch's Hugging Face files through huggingface_hub, against a fake Hub on 127.0.0.1
(HF_ENDPOINT; see the ``hub`` fixture): metadata, LFS redirects, verification, retries, bounds,
and that it writes only inside the data folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from fetch_fixtures import HUB_COMMIT
from fetch_support import HF, manifest, put

from csrwh.errors import CsrwhError
from csrwh.fetch import MANIFEST_NAME, fetch
from csrwh.fetch import download as fetch_http

LFS = {"travel-products.jsonl", "meals-users.jsonl"}  # served as Git LFS files (a CDN redirect)


def _files() -> dict[str, bytes]:
    out = {}
    for domain in ("news", "travel", "meals"):
        for entity in ("products", "users", "impressions"):
            name = f"{domain}-{entity}.jsonl"
            out[name] = "".join(
                json.dumps({"id": f"{name}-{i}"}) + "\n" for i in range(40)
            ).encode()
    return out


@pytest.fixture
def served(hub, sources):
    hub.files.update(_files())
    hub.lfs.update(LFS)
    sources["redirect_hosts"] = ["localhost"]  # the fake Hub's CDN host
    return hub.files


def _hub_only(sources):
    spec = sources["corpora"]["recoreact"]
    spec["urls"] = spec["urls"][:1]
    return sources


def _resolve(name: str) -> str:
    return f"/datasets/microsoft/RecoReact/resolve/main/{name}"


def _listing(folder: Path) -> set[str] | None:
    return {str(p) for p in folder.rglob("*")} if folder.exists() else None


def test_hub_files_come_through_huggingface_hub(hub, served, sources, data_dir):
    from huggingface_hub import constants

    caches = [Path(constants.HF_HUB_CACHE), Path(constants.HF_XET_CACHE)]
    before = [_listing(c) for c in caches]
    [res] = fetch(["recoreact"], data_dir, sources=sources)
    folder = data_dir / "recoreact"
    assert (folder / "food-users.jsonl").read_bytes() == served["meals-users.jsonl"]
    assert (folder / "news-users.jsonl").read_bytes() == served["news-users.jsonl"]
    assert res.files == 9
    m = manifest(folder)
    assert m["source"]["commit"] == HUB_COMMIT
    saved = {d["saved_as"]: d for d in m["downloads"]}
    lfs = saved["travel-products.jsonl"]
    assert lfs["url"] == "https://huggingface.co/" + HF.split("/", 1)[1] + "/travel-products.jsonl"
    assert lfs["fetched_from"] == hub.url + _resolve("travel-products.jsonl")
    assert lfs["commit"] == HUB_COMMIT
    assert {"announced sha256", "announced size"} <= set(lfs["verified"])
    assert "announced size" in saved["news-users.jsonl"]["verified"]
    # metadata (HEAD) then the pinned commit's file: the resolve endpoint, or the CDN for LFS
    asked = [(method, path) for method, path, _ in hub.log if "news-users" in path]
    assert asked[0] == ("HEAD", _resolve("news-users.jsonl"))
    assert asked[-1] == ("GET", _resolve("news-users.jsonl").replace("/main/", f"/{HUB_COMMIT}/"))
    assert ("GET", "/cdn/travel-products.jsonl") in [(m, p) for m, p, _ in hub.log]
    # only the corpus folder is left in the data folder; nothing was written to the HF caches
    assert sorted(p.name for p in data_dir.iterdir()) == ["recoreact"]
    assert not (folder / ".cache").exists() and MANIFEST_NAME in os.listdir(folder)
    assert [_listing(c) for c in caches] == before


def test_hub_bytes_not_matching_the_announced_sha256_are_refused(hub, served, sources, data_dir):
    good = served["travel-products.jsonl"]
    hub.cdn_bytes["travel-products.jsonl"] = good[:-2] + b"X\n"  # same size, other bytes
    with pytest.raises(CsrwhError) as err:
        fetch(["recoreact"], data_dir, sources=sources)
    message = err.value.message
    assert "\n" not in message and "travel-products.jsonl" in message
    assert "failed verification" in message and "the server announced" in message
    assert not (data_dir / "recoreact").exists() and not list(data_dir.glob(".tmp-*"))


def test_hub_pinned_sha256_is_checked(hub, served, sources, data_dir):
    item = next(
        f for f in sources["corpora"]["recoreact"]["files"] if f["remote"] == "news-users.jsonl"
    )
    item["sha256"] = "0" * 64
    with pytest.raises(CsrwhError, match="news-users.jsonl.*failed verification"):
        fetch(["recoreact"], data_dir, sources=sources)
    assert not (data_dir / "recoreact").exists() and not list(data_dir.glob(".tmp-*"))


def test_hub_503_is_retried_by_the_retry_policy(hub, served, sources, data_dir):
    hub.rules[_resolve("news-users.jsonl")] = {"fail": 2}
    fetch(["recoreact"], data_dir, sources=_hub_only(sources))
    assert (data_dir / "recoreact/news-users.jsonl").read_bytes() == served["news-users.jsonl"]
    assert hub.rules[_resolve("news-users.jsonl")]["fail"] == 0


@pytest.mark.parametrize("attempts", [2, 3])
def test_hub_gives_up_after_attempts_with_one_line_error(
    hub, served, sources, data_dir, monkeypatch, attempts
):
    monkeypatch.setattr(fetch_http, "ATTEMPTS", attempts)
    path = _resolve("news-users.jsonl")
    hub.rules[path] = {"fail": 99}
    with pytest.raises(CsrwhError) as err:
        fetch(["recoreact"], data_dir, sources=_hub_only(sources))
    assert [p for _, p, _ in hub.log].count(path) == attempts
    message = err.value.message
    assert "\n" not in message and hub.url + path in message
    assert "HTTP 503" in message and f"after {attempts} tries" in message
    assert not (data_dir / "recoreact").exists() and not list(data_dir.glob(".tmp-*"))


def test_hub_failure_falls_back_to_the_next_url(hub, served, sources, data_dir, server):
    hub.rules[_resolve("news-users.jsonl")] = {"fail": 99}
    put(
        server.root,
        "www.modelscope.cn/datasets/microsoft/RecoReact/resolve/master/news-users.jsonl",
        served["news-users.jsonl"],
    )
    spec = sources["corpora"]["recoreact"]
    spec["urls"][1] = spec["urls"][1].replace("https://", server.url + "/")
    fetch(["recoreact"], data_dir, sources=sources)
    assert (data_dir / "recoreact/news-users.jsonl").read_bytes() == served["news-users.jsonl"]


def test_hub_redirect_to_an_unknown_host_is_refused(hub, served, sources, data_dir):
    del sources["redirect_hosts"]  # localhost (the fake CDN) is not an allowed host
    with pytest.raises(CsrwhError) as err:
        fetch(["recoreact"], data_dir, sources=_hub_only(sources))
    assert "refused a redirect" in err.value.message and "localhost" in err.value.message
    assert not any(path.startswith("/cdn/") for _, path, _ in hub.log)


def test_hub_file_larger_than_the_bound_is_refused(hub, served, sources, data_dir, monkeypatch):
    monkeypatch.setattr(fetch_http, "MAX_FILE_BYTES", 1000)
    with pytest.raises(CsrwhError, match="1,000 bytes"):
        fetch(["recoreact"], data_dir, sources=_hub_only(sources))
    assert not (data_dir / "recoreact").exists() and not list(data_dir.glob(".tmp-*"))


def test_mirror_wins_over_the_hub_client(hub, served, sources, data_dir, server, monkeypatch):
    """CSRWH_MIRROR is a plain file server: with it, hub files come from the mirror."""
    for name, data in served.items():
        put(server.root, f"{HF}/{name}", data)
    monkeypatch.setenv("CSRWH_MIRROR", server.url)
    fetch(["recoreact"], data_dir, sources=sources)
    assert hub.log == []
    assert (data_dir / "recoreact/food-users.jsonl").read_bytes() == served["meals-users.jsonl"]
    d = manifest(data_dir / "recoreact")["downloads"][0]
    assert d["fetched_from"].startswith(server.url + "/huggingface.co/")


@pytest.mark.parametrize("name", ["travel-products.jsonl", "news-users.jsonl"])  # LFS, not LFS
def test_hub_download_cut_short_is_tried_again_quietly(hub, served, sources, data_dir, capfd, name):
    """huggingface_hub tries a dropped connection again; its log lines stay quiet."""
    monkeypatch_sleep = pytest.MonkeyPatch()
    monkeypatch_sleep.setattr("huggingface_hub.file_download.time.sleep", lambda s: None)
    try:
        half = len(served[name]) // 2
        where = (
            f"/cdn/{name}"
            if name in LFS
            else f"/datasets/microsoft/RecoReact/resolve/{HUB_COMMIT}/{name}"
        )
        hub.rules[where] = {"drop_after": half}
        fetch(["recoreact"], data_dir, sources=_hub_only(sources))
    finally:
        monkeypatch_sleep.undo()
    saved = name.replace("meals-", "food-")
    assert (data_dir / "recoreact" / saved).read_bytes() == served[name]
    # tried again (with a Range from the last DOWNLOAD_CHUNK_SIZE chunk written: none here)
    assert [m for m, path, _ in hub.log if path == where and m == "GET"] == ["GET", "GET"]
    err = capfd.readouterr().err
    assert "resume" not in err.lower() and "Error while downloading" not in err
