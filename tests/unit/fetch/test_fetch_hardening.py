"""csrwh.fetch hardening (issue 13.9): body lengths, sizes, redirects, time bounds, part files,
no network, zips given by hand."""

from __future__ import annotations

import socket
import time
import zipfile
from pathlib import Path

import pytest
from fetch_support import (
    CRS_FILES,
    CRS_REF,
    HF,
    SOURCES,
    _good_convsearch,
    _zip,
    github_zip,
    manifest,
    put,
    record_sleeps,
    recoreact_files,
    sha,
    tmp_leftovers,
)

from csrwh.errors import CsrwhError
from csrwh.fetch import MANIFEST_NAME, fetch, redirects
from csrwh.fetch import download as fetch_http
from csrwh.fetch import files as fetch_files
from csrwh.fetch.sources import parse_sources

# --------------------------------------------------------------------------- hardening (issue 13.9)


def parts(data_dir: Path) -> list[Path]:
    return sorted(data_dir.glob(".tmp-*-dl-*"))


def test_short_close_delimited_body_is_not_accepted(server, sources, data_dir):
    """No Content-Length, no checksum: a body cut short cannot be told from a whole one."""
    served = recoreact_files(server.root)
    server.rules[f"/{HF}/news-users.jsonl"] = {"no_length": len(served["news-users.jsonl"]) // 2}
    with pytest.raises(CsrwhError) as err:
        fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert "news-users.jsonl" in err.value.message and "cannot be verified" in err.value.message
    assert not (data_dir / "recoreact").exists() and not parts(data_dir)


def test_close_delimited_body_with_pinned_hash_is_fine(server, sources, data_dir):
    served = recoreact_files(server.root)
    server.rules[f"/{HF}/news-users.jsonl"] = {"no_length": len(served["news-users.jsonl"])}
    item = next(
        f for f in sources["corpora"]["recoreact"]["files"] if f["remote"] == "news-users.jsonl"
    )
    item["sha256"] = sha(served["news-users.jsonl"])
    fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert (data_dir / "recoreact/news-users.jsonl").read_bytes() == served["news-users.jsonl"]


def test_size_announced_by_the_hub_is_checked(server, sources, data_dir):
    served = recoreact_files(server.root)
    real = served["news-users.jsonl"]
    put(server.root, "cdn/short.jsonl", real[:-20])
    server.rules[f"/{HF}/news-users.jsonl"] = {
        "redirect": f"{server.url}/cdn/short.jsonl",
        "headers": {"X-Linked-Size": str(len(real))},
    }
    with pytest.raises(CsrwhError) as err:
        fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert f"size {len(real) - 20}" in err.value.message and str(len(real)) in err.value.message
    assert not (data_dir / "recoreact").exists() and not parts(data_dir)


def test_every_download_records_how_it_was_verified(server, sources, data_dir):
    recoreact_files(server.root)
    fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    for d in manifest(data_dir / "recoreact")["downloads"]:
        assert "content-length" in d["verified"]


def test_cross_host_redirect_is_refused(server, sources, data_dir):
    recoreact_files(server.root)
    evil = server.url.replace("127.0.0.1", "localhost") + "/evil/news-users.jsonl"
    put(server.root, "evil/news-users.jsonl", b'{"id": "evil"}\n')
    server.rules[f"/{HF}/news-users.jsonl"] = {"redirect": evil}
    with pytest.raises(CsrwhError) as err:
        fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert "redirect" in err.value.message and "localhost" in err.value.message
    assert "/evil/news-users.jsonl" not in [p for p, _ in server.log]
    assert not (data_dir / "recoreact").exists()


def test_same_host_redirect_is_followed(server, sources, data_dir):
    served = recoreact_files(server.root)
    put(server.root, "cdn/news-users.jsonl", served["news-users.jsonl"])
    server.rules[f"/{HF}/news-users.jsonl"] = {"redirect": f"{server.url}/cdn/news-users.jsonl"}
    fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert (data_dir / "recoreact/news-users.jsonl").read_bytes() == served["news-users.jsonl"]


def test_redirect_hosts_come_from_the_upstream_list():
    allowed = redirects.allowed_hosts(parse_sources(SOURCES))
    for host in (
        "codeload.github.com",
        "github.com",
        "media.githubusercontent.com",
        "huggingface.co",
    ):
        assert redirects.host_allowed(host, allowed)
    assert redirects.host_allowed("cdn-lfs.hf.co", allowed)
    assert not redirects.host_allowed("evil.example.com", allowed)
    assert not redirects.host_allowed("huggingface.co.evil.example.com", allowed)
    extra = dict(SOURCES, redirect_hosts=["*.example.org"])
    assert redirects.host_allowed("a.example.org", redirects.allowed_hosts(parse_sources(extra)))


def test_file_larger_than_the_bound_is_refused(server, sources, data_dir, monkeypatch):
    recoreact_files(server.root, big="travel-products.jsonl")
    monkeypatch.setattr(fetch_http, "MAX_FILE_BYTES", 10_000)
    with pytest.raises(CsrwhError) as err:
        fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert "travel-products.jsonl" in err.value.message and "10,000 bytes" in err.value.message
    assert not (data_dir / "recoreact").exists() and not parts(data_dir)


def test_close_delimited_body_larger_than_the_bound_is_cut_off(
    server, sources, data_dir, monkeypatch
):
    served = recoreact_files(server.root, big="travel-products.jsonl")
    server.rules[f"/{HF}/travel-products.jsonl"] = {
        "no_length": len(served["travel-products.jsonl"])
    }
    monkeypatch.setattr(fetch_http, "MAX_FILE_BYTES", 10_000)
    with pytest.raises(CsrwhError, match="10,000 bytes"):
        fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert not parts(data_dir)


def test_download_slower_than_the_time_bound_is_abandoned(server, sources, data_dir, monkeypatch):
    recoreact_files(server.root, big="travel-products.jsonl")
    server.rules[f"/{HF}/travel-products.jsonl"] = {"slow": 0.05}
    monkeypatch.setattr(fetch_http, "MAX_FILE_SECONDS", 0.5)
    t0 = time.monotonic()
    with pytest.raises(CsrwhError) as err:
        fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert time.monotonic() - t0 < 5
    assert "travel-products.jsonl" in err.value.message and "0.5 s" in err.value.message
    assert not (data_dir / "recoreact").exists() and not parts(data_dir)


def test_part_files_are_removed_when_a_download_fails(server, sources, data_dir):
    recoreact_files(server.root, big="travel-products.jsonl")
    server.ranges = False
    server.rules[f"/{HF}/travel-products.jsonl"] = {"drop_always": 1000}
    spec = sources["corpora"]["recoreact"]
    spec["urls"] = spec["urls"][:1]  # no fallback URL (whose try would start a new part file)
    with pytest.raises(CsrwhError, match="travel-products.jsonl"):
        fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert not parts(data_dir) and not tmp_leftovers(data_dir)


def _no_sleep(monkeypatch) -> list:
    monkeypatch.setattr(fetch_http, "BACKOFF_SECONDS", 1.0)
    return record_sleeps(monkeypatch)


def test_dns_failure_fails_fast_without_retries(sources, data_dir, monkeypatch):
    slept = _no_sleep(monkeypatch)
    # the resolver's answer for a `.invalid` host (RFC 6761), without asking this machine's DNS:
    # a slow resolver made the real lookup time out, which is a transient error and retried
    real_lookup = socket.getaddrinfo

    def lookup(host, *args, **kwargs):
        if str(host).endswith(".invalid"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real_lookup(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    tries: list = []
    real = fetch_http.attempt
    monkeypatch.setattr(
        fetch_http, "attempt", lambda url, *a, **k: (tries.append(url), real(url, *a, **k))[1]
    )
    with pytest.raises(CsrwhError) as err:
        fetch(["crsarena-dial"], data_dir, mirror="http://csrwh-test.invalid", sources=sources)
    assert slept == [] and len(tries) == 2  # each upstream URL once
    assert "no network" in err.value.message and "csrwh-test.invalid" in err.value.message
    # the mirror failed, not the internet: the hint names the mirror and how to leave it out
    assert "no internet?" not in err.value.hint
    assert "csrwh-test.invalid" in err.value.hint and "unset CSRWH_MIRROR" in err.value.hint


def test_connection_refused_fails_fast_one_line_per_corpus(sources, data_dir, monkeypatch, capsys):
    slept = _no_sleep(monkeypatch)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(CsrwhError) as err:
        fetch(
            ["cosrec", "crsarena-dial", "recoreact"],
            data_dir,
            mirror=f"http://127.0.0.1:{port}",
            sources=sources,
        )
    assert slept == []
    assert "no network" in err.value.message and "\n" not in err.value.message
    assert "CSRWH_MIRROR" in err.value.hint or "--from-zip" in err.value.hint
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("✗")]
    assert len(lines) == 3 and all("no network" in ln for ln in lines)
    assert not list(data_dir.glob(".tmp-*"))


def test_from_zip_with_empty_members_never_replaces_a_good_folder(tmp_path, data_dir):
    before = _good_convsearch(tmp_path, data_dir)
    empty = _zip(tmp_path / "empty.zip", {"x/Dialogs.json": b"", "x/SearchBehaviors.json": b""})
    with pytest.raises(CsrwhError) as err:
        fetch(["convsearch"], data_dir, from_zip=empty, force=True)
    assert "empty" in err.value.message and "Dialogs.json" in err.value.message
    assert (data_dir / "convsearch" / "Dialogs.json").read_bytes() == before
    assert not tmp_leftovers(data_dir)


def test_github_from_zip_without_usable_files_keeps_the_folder(server, tmp_path, sources, data_dir):
    github_zip(server.root, "iai-group", "crsarena-dial", CRS_REF, CRS_FILES)
    fetch(["crsarena-dial"], data_dir, mirror=server.url, sources=sources)
    before = manifest(data_dir / "crsarena-dial")
    zpath = tmp_path / "archive.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("crsarena-dial-x/data/crs_arena_dial_open.json", b"")
        zf.writestr("crsarena-dial-x/data/votes_open.csv", b"")
        zf.writestr("crsarena-dial-x/README.md", b"# readme")
    with pytest.raises(CsrwhError, match="no usable files"):
        fetch(["crsarena-dial"], data_dir, from_zip=zpath, force=True, sources=sources)
    assert manifest(data_dir / "crsarena-dial") == before


def test_from_zip_whose_files_are_all_unresolved_lfs_pointers_is_refused(
    server, tmp_path, sources, data_dir
):
    (data_dir / "cosrec").mkdir(parents=True)
    (data_dir / "cosrec" / "keep.txt").write_text("mine")
    pointer = (
        b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"a" * 64 + b"\nsize 12\n"
    )
    zpath = tmp_path / "cosrec.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("CoSRec-x/dataset/raw/conversations.jsonl", pointer)
    with pytest.raises(CsrwhError, match="no usable files"):
        fetch(["cosrec"], data_dir, from_zip=zpath, force=True, mirror=server.url, sources=sources)
    assert (data_dir / "cosrec" / "keep.txt").read_text() == "mine"


def test_from_zip_extracted_size_is_bounded(tmp_path, data_dir, monkeypatch):
    monkeypatch.setattr(fetch_files, "MAX_EXTRACT_BYTES", 1000)
    big = _zip(
        tmp_path / "big.zip",
        {"Dialogs.json": b"[" + b" " * 5000 + b"]", "SearchBehaviors.json": b"[]"},
    )
    with pytest.raises(CsrwhError) as err:
        fetch(["convsearch"], data_dir, from_zip=big)
    assert "1,000 bytes" in err.value.message
    assert not (data_dir / "convsearch").exists() and not tmp_leftovers(data_dir)


def test_close_delimited_zip_is_verified_by_its_own_structure(server, sources, data_dir):
    path = github_zip(server.root, "iai-group", "crsarena-dial", CRS_REF, CRS_FILES)
    size = (server.root / path.lstrip("/")).stat().st_size
    server.rules[path] = {"no_length": size}
    fetch(["crsarena-dial"], data_dir, mirror=server.url, sources=sources)
    [d] = manifest(data_dir / "crsarena-dial")["downloads"]
    assert d["verified"] == ["zip structure and CRC-32 of every member (on extraction)"]

    server.rules[path] = {"no_length": size - 30}  # cut short: the zip does not open
    with pytest.raises(CsrwhError, match="not a valid zip"):
        fetch(["crsarena-dial"], data_dir, mirror=server.url, sources=sources, force=True)
    assert (data_dir / "crsarena-dial" / MANIFEST_NAME).is_file() and not parts(data_dir)
