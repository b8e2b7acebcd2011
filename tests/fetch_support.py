"""Shared by the csrwh.fetch tests (tests/unit/fetch/): the upstream table's refs and the
builders of served files (GitHub-shaped zips, hub files) and of what a test reads back."""

from __future__ import annotations

import hashlib
import json
import threading
import time
import zipfile
from pathlib import Path

from csrwh.fetch import MANIFEST_NAME, fetch, load_sources

SOURCES = load_sources()
COSREC_REF = SOURCES["corpora"]["cosrec"]["ref"]
CRS_REF = SOURCES["corpora"]["crsarena-dial"]["ref"]  # short id
CRS_FULL = CRS_REF + "0" * (40 - len(CRS_REF))
RECLLMSIM_REF = SOURCES["corpora"]["recllmsim"]["ref"]
HF = "huggingface.co/datasets/microsoft/RecoReact/resolve/main"


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


# --------------------------------------------------------------------------- RecLLMSim files, hand-made zips


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


def record_sleeps(monkeypatch, *, really: bool = False) -> list[float]:
    """The seconds ``time.sleep`` is asked for by this test's own thread (fetch downloads in the
    caller's thread), sleeping them too when ``really``. ``time.sleep`` is one function for the
    whole process: other threads (the test server's, or one a previous test of this worker left
    behind) sleep as before and are not recorded; CI once failed on a stray 0.05 s."""
    slept: list[float] = []
    real_sleep = time.sleep
    caller = threading.get_ident()

    def sleep(seconds: float) -> None:
        if threading.get_ident() != caller:
            real_sleep(seconds)
            return
        slept.append(seconds)
        if really:
            real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", sleep)
    return slept


def kept_files(folder: Path) -> list[str]:
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.name != MANIFEST_NAME
    )
