"""Discovery of symlinks and special files in the data folder.

Links whose target lies inside the data folder are followed (records land under the path
as seen through the link); links pointing outside, dangling links, link loops and
FIFOs / sockets / devices are skipped with one warning line each, and never read.
Every ingest here runs in a thread with a deadline, so a hang (e.g. opening a FIFO) fails
the test instead of blocking the suite.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from ingest import run_ingest
from ingest.summary import IngestSummary

DEADLINE_S = 30.0
DOC = '{"task": "t", "history": []}'


def _ingest_with_deadline(
    data: Path, con: duckdb.DuckDBPyConnection, unblock: Callable[[], None] | None = None
) -> IngestSummary:
    """``run_ingest`` in a thread; fails (after calling ``unblock``) if it does not finish."""
    out: dict[str, object] = {}

    def target() -> None:
        try:
            out["summary"] = run_ingest(data, con, corpora=["recllmsim"], progress=False)
        except BaseException as exc:  # noqa: BLE001 -- re-raised in the test thread
            out["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(DEADLINE_S)
    if worker.is_alive():
        for _ in range(100):  # the old loader opened a FIFO more than once (hash, then read)
            if unblock is None or not worker.is_alive():
                break
            with contextlib.suppress(OSError):
                unblock()
            worker.join(0.1)
        pytest.fail(f"ingest did not finish within {DEADLINE_S:.0f} s (blocked on a special file?)")
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out["summary"]  # type: ignore[return-value]


def _landed(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [
        p
        for (p,) in con.execute(
            "SELECT source_path FROM raw.recllmsim__conversations ORDER BY source_path"
        ).fetchall()
    ]


def _warned(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "ingest.discover" and r.levelno == logging.WARNING
    ]


@pytest.fixture
def data(tmp_path: Path, write_file) -> Path:
    """``<tmp>/data/recllmsim`` with one real file; ``<tmp>/outside`` is beyond the data folder."""
    root = tmp_path / "data"
    write_file(root, "recllmsim/V2/gifts/0.json", DOC)
    write_file(tmp_path, "outside/secret.json", DOC)
    write_file(tmp_path, "outside/dir/1.json", DOC)
    return root


def test_links_inside_the_data_folder_are_followed(data, duck, write_file, caplog):
    write_file(data, "shared/one.json", DOC)
    write_file(data, "shared/more/2.json", DOC)
    corpus = data / "recllmsim"
    (corpus / "linked.json").symlink_to(
        "../shared/one.json"
    )  # file link, outside the corpus folder
    (corpus / "alias").symlink_to("V2")  # folder link inside the corpus folder
    (corpus / "V2" / "extra").symlink_to(data / "shared" / "more")  # absolute folder link
    s = _ingest_with_deadline(data, duck)
    assert _landed(duck) == [
        "V2/extra/2.json",
        "V2/gifts/0.json",
        "alias/extra/2.json",
        "alias/gifts/0.json",
        "linked.json",
    ]
    assert (s.files_loaded, s.records_rejected) == (5, 0)
    assert s.warnings == [] and _warned(caplog) == []


def _outside_file(data: Path) -> tuple[str, str]:
    target = data.parent / "outside" / "secret.json"
    (data / "recllmsim" / "secret.json").symlink_to(target)
    return "secret.json", f"{target}: symlink points outside the data folder, not followed"


def _outside_folder(data: Path) -> tuple[str, str]:
    (data / "recllmsim" / "extra").symlink_to("../../outside/dir")
    return "extra", "../../outside/dir: symlink points outside the data folder, not followed"


def _dangling(data: Path) -> tuple[str, str]:
    (data / "recllmsim" / "gone.json").symlink_to("missing.json")
    return "gone.json", "missing.json: dangling symlink (target does not exist), not followed"


def _self_loop_folder(data: Path) -> tuple[str, str]:
    (data / "recllmsim" / "V2" / "gifts" / "up").symlink_to("..")
    return "V2/gifts/up", "..: symlink to an ancestor folder (loop), not followed"


def _link_cycle(data: Path) -> tuple[str, str]:
    (data / "recllmsim" / "self.json").symlink_to("self.json")
    return "self.json", "self.json: symlink loop, not followed"


def _to_data_folder(data: Path) -> tuple[str, str]:
    (data / "recllmsim" / "all").symlink_to(data)
    return "all", f"{data}: symlink to an ancestor folder (loop), not followed"


@pytest.mark.parametrize(
    "make",
    [_outside_file, _outside_folder, _dangling, _self_loop_folder, _link_cycle, _to_data_folder],
    ids=[
        "outside-file",
        "outside-folder",
        "dangling",
        "self-loop-folder",
        "link-cycle",
        "to-data-folder",
    ],
)
def test_bad_links_are_reported_once_and_not_followed(data, duck, caplog, make):
    link, why = make(data)
    s = _ingest_with_deadline(data, duck)
    assert _landed(duck) == ["V2/gifts/0.json"]
    line = f"recllmsim/{link} -> {why}"
    assert s.warnings == [line]
    assert _warned(caplog) == [line]
    assert s.records_rejected == 0 and s.ignored_files == []


def test_fifo_is_skipped_with_a_warning_and_never_opened(data, duck, caplog):
    fifo = data / "recllmsim" / "pipe.json"  # matches **/*.json: the old loader hashed (opened) it
    os.mkfifo(fifo)

    def unblock() -> None:  # a writer lets a reader stuck in open() return, so the thread ends
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    s = _ingest_with_deadline(data, duck, unblock=unblock)
    assert _landed(duck) == ["V2/gifts/0.json"]
    line = "recllmsim/pipe.json: named pipe (FIFO), not a regular file, skipped"
    assert s.warnings == [line] and _warned(caplog) == [line]


def test_fifo_behind_a_link_and_a_socket_are_skipped(data, duck, caplog, tmp_path):
    corpus = data / "recllmsim"
    os.mkfifo(data / "pipe")
    (corpus / "via-link.json").symlink_to("../pipe")
    sock_path = corpus / "s.json"
    if len(os.fsencode(sock_path)) >= 100:
        pytest.skip("tmp path too long for an AF_UNIX socket")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(os.fsdecode(sock_path))

        def unblock() -> None:
            os.close(os.open(data / "pipe", os.O_WRONLY | os.O_NONBLOCK))

        s = _ingest_with_deadline(data, duck, unblock=unblock)
    finally:
        sock.close()
    assert _landed(duck) == ["V2/gifts/0.json"]
    assert s.warnings == [
        "recllmsim/s.json: socket, not a regular file, skipped",
        "recllmsim/via-link.json: named pipe (FIFO), not a regular file, skipped",
    ]
    assert _warned(caplog) == s.warnings
