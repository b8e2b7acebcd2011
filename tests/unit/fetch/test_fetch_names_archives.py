"""csrwh.fetch: corpus names and mirror URLs, GitHub archives, RecLLMSim kept by content."""

from __future__ import annotations

import pytest
from fetch_support import (
    COSREC_REF,
    CRS_FILES,
    CRS_FULL,
    CRS_REF,
    RECLLMSIM_CONVERSATIONS,
    RECLLMSIM_JSON_NOT_CONVERSATIONS,
    RECLLMSIM_OTHER_FILES,
    RECLLMSIM_REF,
    SOURCES,
    github_zip,
    kept_files,
    manifest,
    put,
    recllmsim_zip,
    sha,
    tmp_leftovers,
)

from csrwh.errors import CsrwhError
from csrwh.fetch import MANIFEST_NAME, fetch, mirror_url, resolve_corpora

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
