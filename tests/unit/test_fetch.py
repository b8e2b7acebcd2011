"""csrwh.fetch against a local HTTP server (no internet): layout, manifest, retries, resume,
verification, atomic replacement, LFS pointers, ConvSearch zips, skipping."""

from __future__ import annotations

import copy
import hashlib
import json
import re
import socket
import threading
import time
import urllib.parse
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from csrwh.errors import CsrwhError
from csrwh.fetch import MANIFEST_NAME, fetch, load_sources, mirror_url, resolve_corpora
from csrwh.fetch import download as fetch_http
from csrwh.fetch import files as fetch_files
from csrwh.fetch.sources import Selection, parse_sources

SOURCES = load_sources()
COSREC_REF = SOURCES["corpora"]["cosrec"]["ref"]
CRS_REF = SOURCES["corpora"]["crsarena-dial"]["ref"]  # short id
CRS_FULL = CRS_REF + "0" * (40 - len(CRS_REF))
RECLLMSIM_REF = SOURCES["corpora"]["recllmsim"]["ref"]
HF = "huggingface.co/datasets/microsoft/RecoReact/resolve/main"


# --------------------------------------------------------------------------- local server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):
        srv = self.server
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        rng = self.headers.get("Range")
        srv.log.append((path, rng))
        rule = srv.rules.get(path, {})
        if rule.get("fail", 0) > 0:
            rule["fail"] -= 1
            return self._empty(503)
        if rule.get("redirect"):  # answer with a redirect (and headers, e.g. X-Linked-Size)
            self.send_response(302)
            self.send_header("Location", rule["redirect"])
            for key, value in rule.get("headers", {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        file = srv.root / path.lstrip("/")
        if not file.is_file():
            return self._empty(404)
        data = file.read_bytes()
        if rule.get("no_length") is not None:  # close-delimited body of this many bytes
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data[: rule["no_length"]])
            self.close_connection = True
            return
        start = 0
        if rng and srv.ranges:
            start = int(re.fullmatch(r"bytes=(\d+)-", rng).group(1))
            if start >= len(data):
                return self._empty(416)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", '"v1"')
        if srv.ranges:
            self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        drop = rule.pop("drop_after", rule.get("drop_always"))
        if drop is not None:  # send part of the body, then hang up
            self.wfile.write(body[:drop])
            self.wfile.flush()
            self.close_connection = True
            return
        if rule.get("slow"):  # 1000 bytes, then a pause, ...
            for k in range(0, len(body), 1000):
                self.wfile.write(body[k : k + 1000])
                self.wfile.flush()
                time.sleep(rule["slow"])
            return
        self.wfile.write(body)

    def _empty(self, code):
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.root, httpd.rules, httpd.log, httpd.ranges = root, {}, [], True
    httpd.daemon_threads = True
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def _fast(monkeypatch):
    monkeypatch.setattr(fetch_http, "BACKOFF_SECONDS", 0)
    monkeypatch.setattr(fetch_http, "TIMEOUT_SECONDS", 5)
    monkeypatch.delenv("CSRWH_MIRROR", raising=False)


@pytest.fixture
def sources():
    """The real upstream table without the known per-file hashes (test content is synthetic)."""
    s = copy.deepcopy(SOURCES)
    for spec in s["corpora"].values():
        spec.pop("expected_files", None)
    return s


@pytest.fixture
def data_dir(tmp_path):
    return tmp_path / "data"


# --------------------------------------------------------------------------- builders


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def put(root: Path, rel: str, data: bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def github_zip(
    root: Path, owner: str, repo: str, ref: str, files: dict[str, bytes], commit: str | None = None
) -> str:
    """A zip shaped like a GitHub archive, served at the codeload URL; returns its URL path."""
    rel = f"codeload.github.com/{owner}/{repo}/zip/{ref}"
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    top = f"{repo}-{commit or ref}"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.comment = (commit or ref).encode()
        zf.writestr(f"{top}/", b"")
        for name, data in files.items():
            zf.writestr(f"{top}/{name}", data)
    return "/" + rel


CRS_FILES = {
    "data/crs_arena_dial_open.json": b'[{"conversation ID": "a_1"}]',
    "data/crs_arena_dial_closed.json": b'[{"conversation ID": "b_2"}]',
    "data/votes_open.csv": b"session_id,vote\n1,tie\n",
    "README.md": b"# not data\n",
    "DataAnalysis.md": b"# analysis\n",
}


def recoreact_files(root: Path, big: str | None = None) -> dict[str, bytes]:
    out = {}
    for domain in ("news", "travel", "meals"):
        for entity in ("products", "users", "impressions"):
            name = f"{domain}-{entity}.jsonl"
            data = "".join(json.dumps({"id": f"{name}-{i}"}) + "\n" for i in range(3)).encode()
            if name == big:
                data = "".join(
                    json.dumps({"id": i, "pad": "x" * 90}) + "\n" for i in range(3000)
                ).encode()
            put(root, f"{HF}/{name}", data)
            out[name] = data
    return out


def manifest(folder: Path) -> dict:
    return json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))


def tmp_leftovers(data_dir: Path, kinds=("build", "old")) -> list[Path]:
    return [p for p in data_dir.glob(".tmp-*") if any(f"-{k}-" in p.name for k in kinds)]


# --------------------------------------------------------------------------- names and URLs


def test_mirror_url_maps_host_into_path():
    assert mirror_url("https://codeload.github.com/o/r/zip/abc", "http://127.0.0.1:9/") == (
        "http://127.0.0.1:9/codeload.github.com/o/r/zip/abc"
    )
    assert mirror_url("https://h.org/a/b?x=1", "http://m/base") == "http://m/base/h.org/a/b?x=1"
    assert mirror_url("https://h.org/a", None) == "https://h.org/a"


def test_resolve_names_aliases_and_unknown():
    assert resolve_corpora([]) == [
        "cosrec",
        "crsarena-dial",
        "convsearch",
        "recllmsim",
        "recoreact",
    ]
    assert resolve_corpora(["crsarena", "CRSArena-Dial", "RecoReact"]) == [
        "crsarena-dial",
        "recoreact",
    ]
    with pytest.raises(CsrwhError) as err:
        resolve_corpora(["movielens"])
    assert err.value.message == "movielens: unknown corpus"  # the registry's one message
    for name in ("cosrec", "crsarena-dial", "convsearch", "recllmsim", "recoreact"):
        assert name in err.value.hint


def test_unknown_corpus_fetches_nothing(data_dir):
    with pytest.raises(CsrwhError, match="unknown corpus"):
        fetch(["cosrec", "nope"], data_dir, mirror="http://127.0.0.1:9")
    assert not (data_dir / "cosrec").exists()


# --------------------------------------------------------------------------- GitHub archives


def test_github_archive_lands_upstream_layout_with_manifest(server, sources, data_dir):
    github_zip(server.root, "iai-group", "crsarena-dial", CRS_REF, CRS_FILES, commit=CRS_FULL)
    [res] = fetch(["crsarena"], data_dir, mirror=server.url, sources=sources)

    folder = data_dir / "crsarena-dial"
    assert res.status == "fetched" and res.path == folder and res.files == 3
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        MANIFEST_NAME,
        "data/crs_arena_dial_closed.json",
        "data/crs_arena_dial_open.json",
        "data/votes_open.csv",
    ]
    assert (folder / "data/votes_open.csv").read_bytes() == CRS_FILES["data/votes_open.csv"]
    m = manifest(folder)
    assert m["corpus"] == "crsarena-dial" and m["fetched_at"].endswith("Z")
    assert m["source"]["ref"] == CRS_REF and m["source"]["commit"] == CRS_FULL
    assert (
        m["source"]["urls"][0]
        == f"https://codeload.github.com/iai-group/crsarena-dial/zip/{CRS_REF}"
    )
    assert m["downloads"][0]["fetched_from"].startswith(server.url + "/codeload.github.com/")
    assert {f["path"]: f["sha256"] for f in m["files"]} == {
        k: sha(v) for k, v in CRS_FILES.items() if k.startswith("data/")
    }
    assert m["subsets"] == {"data": 3}
    assert not list(data_dir.glob(".tmp-*"))  # temp files cleaned up


def test_recllmsim_keeps_unicode_paths_and_subset_folders(server, sources, data_dir):
    files = {
        "real_human_user/User_1/旅行规划/0.json": '{"task_type": "旅行规划", "history": []}'.encode(),
        "LLM_agent_user/travel planning/0.json": b'{"task": "travel planning", "history": []}',
        "V2/recipe planning/3.json": b'{"history": []}',
        "code/train.py": b"print()",
    }
    github_zip(server.root, "wzf2000", "RecLLMSim", RECLLMSIM_REF, files)
    [res] = fetch(["recllmsim"], data_dir, mirror=server.url, sources=sources)
    folder = data_dir / "recllmsim"
    assert res.files == 3
    assert (folder / "real_human_user/User_1/旅行规划/0.json").read_bytes() == files[
        "real_human_user/User_1/旅行规划/0.json"
    ]
    assert not (folder / "code").exists()


def test_known_file_hash_mismatch_fails_and_leaves_no_folder(server, sources, data_dir):
    github_zip(server.root, "iai-group", "crsarena-dial", CRS_REF, CRS_FILES)
    sources["corpora"]["crsarena-dial"]["expected_files"] = {
        "data/votes_open.csv": {"sha256": "0" * 64, "size": len(CRS_FILES["data/votes_open.csv"])}
    }
    with pytest.raises(CsrwhError, match="votes_open.csv") as err:
        fetch(["crsarena-dial"], data_dir, mirror=server.url, sources=sources)
    assert err.value.hint
    assert not (data_dir / "crsarena-dial").exists()
    assert not tmp_leftovers(data_dir)


def test_archive_of_wrong_commit_is_rejected(server, sources, data_dir):
    github_zip(
        server.root,
        "CAMEO-22",
        "CoSRec",
        COSREC_REF,
        {"dataset/crowd/a.jsonl": b"{}\n"},
        commit="f" * 40,
    )
    with pytest.raises(CsrwhError, match="commit"):
        fetch(["cosrec"], data_dir, mirror=server.url, sources=sources)
    assert not (data_dir / "cosrec").exists()


def test_not_a_zip_is_a_clear_error(server, sources, data_dir):
    put(
        server.root,
        f"codeload.github.com/CAMEO-22/CoSRec/zip/{COSREC_REF}",
        b"<html>rate limited</html>",
    )
    with pytest.raises(CsrwhError, match="not a valid zip") as err:
        fetch(["cosrec"], data_dir, mirror=server.url, sources=sources)
    assert "--from-zip" in err.value.hint


def test_github_corpus_from_local_zip(tmp_path, sources, data_dir):
    github_zip(tmp_path, "iai-group", "crsarena-dial", CRS_REF, CRS_FILES)
    local = tmp_path / f"codeload.github.com/iai-group/crsarena-dial/zip/{CRS_REF}"
    [res] = fetch(["crsarena-dial"], data_dir, from_zip=local, sources=sources)
    assert res.files == 3
    assert manifest(data_dir / "crsarena-dial")["source"]["from_zip"] == str(local)


# --------------------------------------------------------------------------- RecLLMSim: kept by content


def conversation(task: str, history: list | None = None) -> bytes:
    """A RecLLMSim conversation file: a JSON object with a ``history`` list."""
    if history is None:
        history = [{"role": "user", "content": f"帮我做{task}"}]
    record = {"task_type": task, "history": history}
    return json.dumps(record, ensure_ascii=False, indent=4).encode()


RECLLMSIM_CONVERSATIONS = {  # every one is kept, whatever its top-level folder
    "human_exp_V3/User_0/旅行规划/0.json": conversation("旅行规划"),
    "human_exp_V3/User_12/菜谱规划/3.json": conversation("菜谱规划", history=[]),
    "real_human_user/User_1/礼物准备/2.json": conversation("礼物准备"),
    "LLM_agent_user/new travel planning/0.json": conversation("travel planning"),
    "LLM_agent_user/skill learning planning/7.json": conversation("skill learning"),
}
RECLLMSIM_JSON_NOT_CONVERSATIONS = {  # JSON under a folder, but not a conversation
    "user_profiling/desc_translated.json": '{"occupation": {"学生": "student"}}'.encode(),
    "RecUserSim/config/gen_chat_en.json": b'{"model": "gpt-4", "prompts": {}}',
    "LLM_agent_user/index.json": b'[{"history": []}]',  # a JSON array
    "real_human_user/User_1/notes.json": b'{"history": "user: hi"}',  # history not a list
    "human_exp_V3/User_0/broken.json": b'{"history": [',  # not JSON
}
RECLLMSIM_OTHER_FILES = {  # not JSON files under a folder
    "human_exp_V3/User_0/旅行规划/0.txt": conversation("旅行规划"),
    "history.json": conversation("root"),  # at the top, outside any subset folder
    "README.md": b"# RecLLMSim\n",
    "statistics/basic_count.py": b"print()\n",
}


def recllmsim_zip(root: Path, *groups: dict[str, bytes]) -> str:
    files = {name: data for group in groups for name, data in group.items()}
    return github_zip(root, "wzf2000", "RecLLMSim", RECLLMSIM_REF, files)


def kept_files(folder: Path) -> list[str]:
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.name != MANIFEST_NAME
    )


def test_recllmsim_keeps_conversations_of_folders_it_never_heard_of(
    server, sources, data_dir, capsys
):
    recllmsim_zip(
        server.root,
        RECLLMSIM_CONVERSATIONS,
        RECLLMSIM_JSON_NOT_CONVERSATIONS,
        RECLLMSIM_OTHER_FILES,
    )
    [res] = fetch(["recllmsim"], data_dir, mirror=server.url, sources=sources)
    folder = data_dir / "recllmsim"
    for name, data in RECLLMSIM_CONVERSATIONS.items():  # Chinese folder names survive
        assert (folder / name).is_file(), f"{name} was not fetched"
        assert (folder / name).read_bytes() == data
    assert kept_files(folder) == sorted(RECLLMSIM_CONVERSATIONS)

    subsets = {"LLM_agent_user": 2, "human_exp_V3": 2, "real_human_user": 1}
    m = manifest(folder)
    assert m["subsets"] == subsets and res.subsets == subsets
    assert list(m["subsets"]) == sorted(subsets)
    assert {f["path"] for f in m["files"]} == set(RECLLMSIM_CONVERSATIONS)
    assert res.files == 5
    out = " ".join(capsys.readouterr().err.split())
    assert "5 files (LLM_agent_user 2, human_exp_V3 2, real_human_user 1)" in out


def test_recllmsim_leaves_out_files_that_are_not_conversations(server, sources, data_dir, capsys):
    recllmsim_zip(
        server.root,
        RECLLMSIM_CONVERSATIONS,
        RECLLMSIM_JSON_NOT_CONVERSATIONS,
        RECLLMSIM_OTHER_FILES,
    )
    [res] = fetch(["recllmsim"], data_dir, mirror=server.url, sources=sources)
    folder = data_dir / "recllmsim"
    for name in [*RECLLMSIM_JSON_NOT_CONVERSATIONS, *RECLLMSIM_OTHER_FILES]:
        assert not (folder / name).exists(), name
    for gone in ("user_profiling", "RecUserSim", "statistics"):  # no empty folders left
        assert not (folder / gone).exists(), gone
    skipped = len(RECLLMSIM_JSON_NOT_CONVERSATIONS) + len(RECLLMSIM_OTHER_FILES)
    assert res.skipped == skipped
    m = manifest(folder)
    assert m["source"]["select"] == SOURCES["corpora"]["recllmsim"]["select"]
    assert m["source"]["skipped_files"] == skipped
    assert m["source"]["skipped_json"] == sorted(RECLLMSIM_JSON_NOT_CONVERSATIONS)
    out = " ".join(capsys.readouterr().err.split())
    assert f"skipped {skipped} archive files" in out
    assert f"{len(RECLLMSIM_JSON_NOT_CONVERSATIONS)} JSON files" in out


def test_recllmsim_archive_without_conversations_is_an_error(server, sources, data_dir):
    recllmsim_zip(server.root, RECLLMSIM_JSON_NOT_CONVERSATIONS, RECLLMSIM_OTHER_FILES)
    with pytest.raises(CsrwhError, match="history") as err:
        fetch(["recllmsim"], data_dir, mirror=server.url, sources=sources)
    assert "wzf2000/RecLLMSim" in err.value.hint
    assert not (data_dir / "recllmsim").exists()
    assert not tmp_leftovers(data_dir)


def test_recllmsim_expected_files_are_checked_after_selection(server, sources, data_dir):
    recllmsim_zip(server.root, RECLLMSIM_CONVERSATIONS, RECLLMSIM_JSON_NOT_CONVERSATIONS)
    name = "human_exp_V3/User_0/旅行规划/0.json"
    data = RECLLMSIM_CONVERSATIONS[name]
    spec = sources["corpora"]["recllmsim"]
    spec["expected_files"] = {name: {"sha256": sha(data), "size": len(data)}}
    fetch(["recllmsim"], data_dir, mirror=server.url, sources=sources)

    spec["expected_files"] = {name: {"sha256": "0" * 64, "size": len(data)}}
    with pytest.raises(CsrwhError, match="does not match"):
        fetch(["recllmsim"], data_dir, force=True, mirror=server.url, sources=sources)

    spec["expected_files"] = {"user_profiling/desc_translated.json": {"sha256": None}}
    with pytest.raises(CsrwhError, match="desc_translated.json .*`select` rule leaves it out"):
        fetch(["recllmsim"], data_dir, force=True, mirror=server.url, sources=sources)
    assert (data_dir / "recllmsim" / name).read_bytes() == data  # the good folder is kept


@pytest.mark.integration  # reads ../shared/corpora/recllmsim
def test_recllmsim_rule_keeps_every_real_conversation_file(real_corpora):
    """The recllmsim `select` rule of the registry against the byte-for-byte upstream files of the pinned commit."""
    folder = real_corpora / "recllmsim"
    if not folder.is_dir():
        pytest.skip(f"no {folder}")
    selection = Selection.from_spec(SOURCES["corpora"]["recllmsim"])
    subsets: dict[str, int] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if rel.startswith("."):
            continue
        assert selection.path_ok(rel) and selection.content_ok(path), rel
        subsets[rel.split("/", 1)[0]] = subsets.get(rel.split("/", 1)[0], 0) + 1
    assert subsets == {"LLM_agent_user": 1856, "human_exp_V2": 1833, "real_human_user": 291}


@pytest.mark.integration  # reads ../shared/corpora/recllmsim
def test_recllmsim_fetches_real_files_of_every_subset(server, sources, data_dir, real_corpora):
    folder = real_corpora / "recllmsim"
    if not folder.is_dir():
        pytest.skip(f"no {folder}")
    real = {}
    for subset in ("LLM_agent_user", "human_exp_V2", "real_human_user"):
        for path in sorted((folder / subset).rglob("*.json"))[:2]:
            real[path.relative_to(folder).as_posix()] = path.read_bytes()
    recllmsim_zip(server.root, real, RECLLMSIM_JSON_NOT_CONVERSATIONS)
    [res] = fetch(["recllmsim"], data_dir, mirror=server.url, sources=sources)
    assert kept_files(data_dir / "recllmsim") == sorted(real)
    assert res.subsets == {"LLM_agent_user": 2, "human_exp_V2": 2, "real_human_user": 2}


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
    part = fetch_http.part_path(data_dir, "recoreact", upstream)
    data_dir.mkdir()
    part.write_bytes(served["news-products.jsonl"][:10])
    fetch_http.meta_path(part).write_text(
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
    assert "no internet?" in err.value.hint and "data/" in err.value.hint
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


# --------------------------------------------------------------------------- ConvSearch


def test_convsearch_without_zip_explains_manual_download(data_dir):
    with pytest.raises(CsrwhError) as err:
        fetch(["convsearch"], data_dir)
    msg = err.value.message
    assert "https://drive.google.com/file/d/1Bhgwrm12Msx9XBs--9zpCXxJ4n-MM1QJ" in msg
    assert "csrwh fetch convsearch --from-zip PATH" in msg
    assert msg.index("drive.google.com") < msg.index("--from-zip")
    assert not (data_dir / "convsearch").exists()


def test_convsearch_from_zip_finds_files_anywhere(tmp_path, data_dir):
    dialogs = json.dumps([{"id": 1, "turns": []}]).encode()
    behaviors = json.dumps([{"id": 7, "query_string": "q"}]).encode()
    zpath = tmp_path / "ConvSearch-v1.1-Main.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("__MACOSX/ConvSearch-v1.1-Main/._Dialogs.json", b"junk")
        zf.writestr("ConvSearch-v1.1-Main/Dialogs.json", dialogs)
        zf.writestr("ConvSearch-v1.1-Main/data/SearchBehaviors.json", behaviors)
        zf.writestr("ConvSearch-v1.1-Main/README.md", b"readme")
    [res] = fetch([], data_dir, from_zip=zpath)  # --from-zip alone means convsearch
    folder = data_dir / "convsearch"
    assert res.corpus == "convsearch" and res.status == "fetched"
    assert (folder / "Dialogs.json").read_bytes() == dialogs
    assert (folder / "SearchBehaviors.json").read_bytes() == behaviors
    assert sorted(p.name for p in folder.iterdir()) == [
        MANIFEST_NAME,
        "Dialogs.json",
        "SearchBehaviors.json",
    ]
    m = manifest(folder)
    assert m["source"]["version"] == "1.1" and m["downloads"][0]["sha256"] == sha(
        zpath.read_bytes()
    )


def test_convsearch_zip_missing_members(tmp_path, data_dir):
    zpath = tmp_path / "other.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("x/Dialogs.json", b"[]")
    with pytest.raises(CsrwhError, match="SearchBehaviors.json"):
        fetch(["convsearch"], data_dir, from_zip=zpath)
    assert not (data_dir / "convsearch").exists()


def test_from_zip_needs_one_corpus(tmp_path, data_dir):
    zpath = tmp_path / "a.zip"
    zipfile.ZipFile(zpath, "w").close()
    with pytest.raises(CsrwhError, match="one corpus"):
        fetch(["convsearch", "cosrec"], data_dir, from_zip=zpath)


# --------------------------------------------------------------------------- all at once


def test_fetch_all_reports_convsearch_as_manual(server, sources, data_dir):
    github_zip(
        server.root,
        "CAMEO-22",
        "CoSRec",
        COSREC_REF,
        {"dataset/crowd/conversations.jsonl": b'{"CoSRec-Crowd_1": "U: hi"}\n'},
    )
    github_zip(server.root, "iai-group", "crsarena-dial", CRS_REF, CRS_FILES)
    github_zip(
        server.root,
        "wzf2000",
        "RecLLMSim",
        RECLLMSIM_REF,
        {"LLM_agent_user/t/0.json": b'{"history": []}'},
    )
    recoreact_files(server.root)
    results = fetch([], data_dir, mirror=server.url, sources=sources)
    status = {r.corpus: r.status for r in results}
    assert status == {
        "cosrec": "fetched",
        "crsarena-dial": "fetched",
        "convsearch": "manual",
        "recllmsim": "fetched",
        "recoreact": "fetched",
    }
    assert "--from-zip" in next(r for r in results if r.corpus == "convsearch").message
    assert not list(data_dir.glob(".tmp-*"))


def test_failures_are_collected_after_fetching_the_rest(server, sources, data_dir):
    github_zip(server.root, "iai-group", "crsarena-dial", CRS_REF, CRS_FILES)
    with pytest.raises(CsrwhError) as err:
        fetch(
            ["cosrec", "crsarena-dial", "convsearch"], data_dir, mirror=server.url, sources=sources
        )
    assert "cosrec" in err.value.message and "convsearch" in err.value.message
    assert (data_dir / "crsarena-dial" / MANIFEST_NAME).is_file()


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
    allowed = fetch_http.allowed_hosts(parse_sources(SOURCES))
    for host in (
        "codeload.github.com",
        "github.com",
        "media.githubusercontent.com",
        "huggingface.co",
    ):
        assert fetch_http.host_allowed(host, allowed)
    assert fetch_http.host_allowed("cdn-lfs.hf.co", allowed)
    assert not fetch_http.host_allowed("evil.example.com", allowed)
    assert not fetch_http.host_allowed("huggingface.co.evil.example.com", allowed)
    extra = dict(SOURCES, redirect_hosts=["*.example.org"])
    assert fetch_http.host_allowed("a.example.org", fetch_http.allowed_hosts(parse_sources(extra)))


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
    slept: list = []
    monkeypatch.setattr(fetch_http, "BACKOFF_SECONDS", 1.0)
    monkeypatch.setattr(fetch_http.time, "sleep", lambda s: slept.append(s))
    return slept


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
    assert "no internet?" in err.value.hint


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


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _good_convsearch(tmp_path: Path, data_dir: Path) -> bytes:
    good = _zip(
        tmp_path / "good.zip",
        {"Dialogs.json": b'[{"id": 1}]', "SearchBehaviors.json": b'[{"id": 2}]'},
    )
    fetch(["convsearch"], data_dir, from_zip=good)
    return (data_dir / "convsearch" / "Dialogs.json").read_bytes()


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


# --------------------------------------------------------------------------- content check (issue 24.4)


def _all_files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def test_force_from_zip_with_one_trivial_file_keeps_the_corpus_folder(
    server, tmp_path, sources, data_dir
):
    """Before: `--from-zip Z --force` replaced 5 conversations by the zip's one trivial file."""
    recllmsim_zip(server.root, RECLLMSIM_CONVERSATIONS, {}, {})
    fetch(["recllmsim"], data_dir, mirror=server.url, sources=sources)
    before = _all_files(data_dir / "recllmsim")
    github_zip(
        tmp_path,
        "wzf2000",
        "RecLLMSim",
        RECLLMSIM_REF,
        {"LLM_agent_user/t/0.json": b'{"history": []}'},
    )
    trivial = tmp_path / f"codeload.github.com/wzf2000/RecLLMSim/zip/{RECLLMSIM_REF}"
    with pytest.raises(CsrwhError) as err:
        fetch(["recllmsim"], data_dir, from_zip=trivial, force=True, sources=sources)
    message = err.value.message
    assert "raw.recllmsim__conversations: 1 files against 5" in message and "\n" not in message
    assert "--allow-suspect" in err.value.hint
    assert _all_files(data_dir / "recllmsim") == before
    assert not list(data_dir.glob(".tmp-*"))
    # told to: swapped in, and the manifest says what was accepted
    [res] = fetch(
        ["recllmsim"], data_dir, from_zip=trivial, force=True, sources=sources, allow_suspect=True
    )
    assert res.files == 1 and any("1 files against 5" in w for w in res.warnings)
    assert any("swapped in despite" in w for w in manifest(data_dir / "recllmsim")["warnings"])


def test_force_from_zip_of_garbage_files_keeps_convsearch(tmp_path, data_dir):
    before = _good_convsearch(tmp_path, data_dir)
    garbage = _zip(
        tmp_path / "bad.zip", {"Dialogs.json": b"garbage garbage!!", "SearchBehaviors.json": b"x"}
    )
    with pytest.raises(CsrwhError) as err:
        fetch(["convsearch"], data_dir, from_zip=garbage, force=True)
    assert "Dialogs.json: wrong top-level shape" in err.value.message
    assert "no record lands" in err.value.message
    assert (data_dir / "convsearch" / "Dialogs.json").read_bytes() == before
    assert not list(data_dir.glob(".tmp-*"))


def test_a_mirror_serving_a_zero_byte_hub_file_is_refused(server, sources, data_dir):
    recoreact_files(server.root)
    (server.root / HF / "news-users.jsonl").write_bytes(b"")
    with pytest.raises(CsrwhError) as err:
        fetch(["recoreact"], data_dir, mirror=server.url, sources=sources)
    assert "news-users.jsonl: empty file (no record lands)" in err.value.message
    assert not (data_dir / "recoreact").exists()
    assert not list(data_dir.glob(".tmp-*"))


def test_force_from_zip_with_one_trivial_file_keeps_the_real_recllmsim(
    tmp_path, sources, data_dir, real_corpora
):
    """The observed case: the real 91-file RecLLMSim folder, a zip with one trivial file."""
    import shutil

    shutil.copytree(real_corpora / "recllmsim", data_dir / "recllmsim")
    n = len(list((data_dir / "recllmsim").rglob("*.json")))
    github_zip(tmp_path, "wzf2000", "RecLLMSim", RECLLMSIM_REF, {"x/0.json": b'{"history": []}'})
    trivial = tmp_path / f"codeload.github.com/wzf2000/RecLLMSim/zip/{RECLLMSIM_REF}"
    with pytest.raises(CsrwhError, match=f"1 files against {n:,}"):
        fetch(["recllmsim"], data_dir, from_zip=trivial, force=True, sources=sources)
    assert len(list((data_dir / "recllmsim").rglob("*.json"))) == n
