"""csrwh.fetch: Git LFS pointers, hub files, retries and resume, skipping what is fetched."""

from __future__ import annotations

import copy
import json
import socket
from pathlib import Path

import pytest
from fetch_support import (
    COSREC_REF,
    CRS_FILES,
    CRS_REF,
    HF,
    github_zip,
    manifest,
    put,
    recoreact_files,
    sha,
    tmp_leftovers,
)

from csrwh.errors import CsrwhError
from csrwh.fetch import MANIFEST_NAME, fetch, mirror_url, parts

# --------------------------------------------------------------------------- Git LFS


def _cosrec_with_pointer(root: Path, real: bytes) -> dict[str, bytes]:
    pointer = f"version https://git-lfs.github.com/spec/v1\noid sha256:{sha(real)}\nsize {len(real)}\n".encode()
    files = {
        "dataset/raw/conversations.jsonl": pointer,
        "dataset/crowd/conversations.jsonl": b'{"CoSRec-Crowd_1": "U: hi\\nS: hello"}\n',
        "dataset/curated/qrels.qrels": b"1 0 d1 2\n",
        "scripts/generate.py": b"pass\n",
    }
    github_zip(root, "CAMEO-22", "CoSRec", COSREC_REF, files)
    return files


def test_lfs_pointer_is_replaced_by_media_download(server, sources, data_dir):
    real = b'{"CoSRec-Raw_1": "U: a\\nS: b"}\n' * 50
    _cosrec_with_pointer(server.root, real)
    put(
        server.root,
        f"media.githubusercontent.com/media/CAMEO-22/CoSRec/{COSREC_REF}/dataset/raw/conversations.jsonl",
        real,
    )
    [res] = fetch(["cosrec"], data_dir, mirror=server.url, sources=sources)
    folder = data_dir / "cosrec"
    assert (folder / "dataset/raw/conversations.jsonl").read_bytes() == real
    assert not (folder / "scripts").exists()
    assert res.warnings == []
    m = manifest(folder)
    assert m["source"]["lfs_missing"] == []
    assert any(d.get("lfs_oid") == f"sha256:{sha(real)}" for d in m["downloads"])


def test_lfs_pointer_left_out_with_warning_when_media_fails(server, sources, data_dir):
    _cosrec_with_pointer(server.root, b"real content that the server does not have\n")
    [res] = fetch(["cosrec"], data_dir, mirror=server.url, sources=sources)
    folder = data_dir / "cosrec"
    assert not (folder / "dataset/raw/conversations.jsonl").exists()
    assert (folder / "dataset/crowd/conversations.jsonl").is_file()
    assert (
        len(res.warnings) == 1
        and "Git LFS" in res.warnings[0]
        and "raw/conversations.jsonl" in res.warnings[0]
    )
    m = manifest(folder)
    assert m["source"]["lfs_missing"] == ["dataset/raw/conversations.jsonl"]
    assert "dataset/raw/conversations.jsonl" not in {f["path"] for f in m["files"]}


def test_lfs_media_with_wrong_content_is_not_kept(server, sources, data_dir):
    _cosrec_with_pointer(server.root, b"the right content\n")
    put(
        server.root,
        f"media.githubusercontent.com/media/CAMEO-22/CoSRec/{COSREC_REF}/dataset/raw/conversations.jsonl",
        b"tampered\n",
    )
    [res] = fetch(["cosrec"], data_dir, mirror=server.url, sources=sources)
    assert not (data_dir / "cosrec/dataset/raw/conversations.jsonl").exists()
    assert res.warnings


# --------------------------------------------------------------------------- hub files, retries, resume


def test_recoreact_files_via_env_mirror(server, sources, data_dir, monkeypatch):
    served = recoreact_files(server.root)
    monkeypatch.setenv("CSRWH_MIRROR", server.url)
    [res] = fetch(["recoreact"], data_dir, sources=sources)
    folder = data_dir / "recoreact"
    names = sorted(p.name for p in folder.iterdir() if p.name != MANIFEST_NAME)
    assert names == sorted(
        f"{d}-{e}.jsonl"
        for d in ("news", "travel", "food")
        for e in ("products", "users", "impressions")
    )
    assert (folder / "food-users.jsonl").read_bytes() == served["meals-users.jsonl"]
    m = manifest(folder)
    saved = {d["saved_as"]: d for d in m["downloads"]}
    assert saved["food-users.jsonl"]["upstream_path"] == "meals-users.jsonl"
    assert (
        saved["food-users.jsonl"]["url"]
        == "https://huggingface.co/datasets/microsoft/RecoReact/resolve/main/meals-users.jsonl"
    )
    assert res.files == 9
    assert m["subsets"] == {".": 9}  # files at the top


def test_retries_after_two_503s(server, sources, data_dir):
    recoreact_files(server.root)
    path = f"/{HF}/news-users.jsonl"
    server.rules[path] = {"fail": 2}
    fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert [p for p, _ in server.log].count(path) == 3
    assert (data_dir / "recoreact/news-users.jsonl").is_file()


def test_gives_up_after_three_tries_then_falls_back_to_next_url(server, sources, data_dir):
    served = recoreact_files(server.root)
    path = f"/{HF}/news-users.jsonl"
    server.rules[path] = {"fail": 99}
    put(
        server.root,
        "www.modelscope.cn/datasets/microsoft/RecoReact/resolve/master/news-users.jsonl",
        served["news-users.jsonl"],
    )
    fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert [p for p, _ in server.log].count(path) == 3
    assert (data_dir / "recoreact/news-users.jsonl").read_bytes() == served["news-users.jsonl"]


def test_resumes_with_range_after_connection_drop(server, sources, data_dir):
    served = recoreact_files(server.root, big="travel-products.jsonl")
    path = f"/{HF}/travel-products.jsonl"
    half = len(served["travel-products.jsonl"]) // 2
    server.rules[path] = {"drop_after": half}
    fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    requests = [r for p, r in server.log if p == path]
    assert requests == [None, f"bytes={half}-"]
    assert (data_dir / "recoreact/travel-products.jsonl").read_bytes() == served[
        "travel-products.jsonl"
    ]


def test_restarts_when_server_ignores_range(server, sources, data_dir):
    served = recoreact_files(server.root, big="travel-products.jsonl")
    server.ranges = False
    path = f"/{HF}/travel-products.jsonl"
    server.rules[path] = {"drop_after": 1000}
    fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert (data_dir / "recoreact/travel-products.jsonl").read_bytes() == served[
        "travel-products.jsonl"
    ]


def test_resumes_partial_file_left_by_an_earlier_run(server, sources, data_dir):
    served = recoreact_files(server.root)
    upstream = (
        "https://huggingface.co/datasets/microsoft/RecoReact/resolve/main/news-products.jsonl"
    )
    part = parts.part_path(data_dir, "recoreact", upstream)
    data_dir.mkdir()
    part.write_bytes(served["news-products.jsonl"][:10])
    parts.meta_path(part).write_text(
        json.dumps({"url": mirror_url(upstream, server.url), "validator": '"v1"'})
    )
    fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert [r for p, r in server.log if p.endswith("/news-products.jsonl")] == ["bytes=10-"]
    assert (data_dir / "recoreact/news-products.jsonl").read_bytes() == served[
        "news-products.jsonl"
    ]
    assert not list(data_dir.glob(".tmp-*"))


def test_sha256_mismatch_keeps_previous_good_folder(server, sources, data_dir):
    recoreact_files(server.root)
    fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    folder = data_dir / "recoreact"
    before = (folder / MANIFEST_NAME).read_bytes()

    bad = copy.deepcopy(sources)
    bad["corpora"]["recoreact"]["files"][4]["sha256"] = "0" * 64  # travel-users.jsonl
    with pytest.raises(CsrwhError, match="travel-users.jsonl") as err:
        fetch(["recoreact"], data_dir, force=True, mirror=server.url, sources=bad)
    assert "verification" in err.value.message and server.url in err.value.message
    assert (folder / MANIFEST_NAME).read_bytes() == before
    assert len([p for p in folder.iterdir()]) == 10
    assert not tmp_leftovers(data_dir) and not list(data_dir.glob(".tmp-*.part"))

    fresh = data_dir.parent / "fresh"
    with pytest.raises(CsrwhError):
        fetch(["recoreact"], fresh, mirror=server.url, sources=bad)
    assert not (fresh / "recoreact").exists()
    assert not tmp_leftovers(fresh)


def test_html_instead_of_jsonl_is_rejected(server, sources, data_dir):
    recoreact_files(server.root)
    put(server.root, f"{HF}/food-users.jsonl", b"")  # unrelated
    put(server.root, f"{HF}/meals-users.jsonl", b"<!DOCTYPE html><title>Sign in</title>")
    with pytest.raises(CsrwhError, match="did not return JSON"):
        fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert not (data_dir / "recoreact").exists()


def test_no_network_error_names_url_and_hint(sources, data_dir):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(CsrwhError) as err:
        fetch(["crsarena-dial"], data_dir, mirror=f"http://127.0.0.1:{port}", sources=sources)
    assert "codeload.github.com/iai-group/crsarena-dial" in err.value.message
    # the mirror refused, not the internet: the hint names it, and the manual way still
    assert "no internet?" not in err.value.hint and f"127.0.0.1:{port}" in err.value.hint
    assert "--from-zip" in err.value.hint and "data/" in err.value.hint
    assert not (data_dir / "crsarena-dial").exists()


# --------------------------------------------------------------------------- skipping


def test_already_fetched_is_skipped_unless_force(server, sources, data_dir):
    zip_path = github_zip(server.root, "iai-group", "crsarena-dial", CRS_REF, CRS_FILES)
    fetch(["crsarena-dial"], data_dir, mirror=server.url, sources=sources)
    [res] = fetch(["crsarena-dial"], data_dir, mirror=server.url, sources=sources)
    assert res.status == "skipped"
    assert [p for p, _ in server.log].count(zip_path) == 1

    (data_dir / "crsarena-dial/data/stray.txt").write_text("old")
    [res] = fetch(["crsarena-dial"], data_dir, force=True, mirror=server.url, sources=sources)
    assert res.status == "fetched"
    assert [p for p, _ in server.log].count(zip_path) == 2
    assert not (data_dir / "crsarena-dial/data/stray.txt").exists()  # replaced as a whole


def test_hand_copied_folder_without_manifest_is_left_alone(server, sources, data_dir):
    (data_dir / "crsarena-dial/data").mkdir(parents=True)
    (data_dir / "crsarena-dial/data/votes_open.csv").write_text("mine")
    [res] = fetch(["crsarena-dial"], data_dir, mirror=server.url, sources=sources)
    assert res.status == "skipped" and "--force" in res.message
    assert server.log == []
