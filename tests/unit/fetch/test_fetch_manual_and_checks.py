"""csrwh.fetch: ConvSearch's manual zip, fetching all at once, the content check (issue 24.4)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from fetch_support import (
    COSREC_REF,
    CRS_FILES,
    CRS_REF,
    HF,
    RECLLMSIM_CONVERSATIONS,
    RECLLMSIM_REF,
    _good_convsearch,
    _zip,
    github_zip,
    manifest,
    recllmsim_zip,
    recoreact_files,
    sha,
)

from csrwh.errors import CsrwhError
from csrwh.fetch import MANIFEST_NAME, fetch

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
