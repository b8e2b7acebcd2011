"""Fetch rules on the real RecLLMSim files (../shared/corpora), served by a local HTTP server."""

from __future__ import annotations

import pytest
from fetch_support import (
    RECLLMSIM_JSON_NOT_CONVERSATIONS,
    RECLLMSIM_REF,
    SOURCES,
    github_zip,
    kept_files,
    recllmsim_zip,
)

from csrwh.errors import CsrwhError
from csrwh.fetch import fetch
from csrwh.fetch.sources import Selection


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
