"""`csrwh report --out DIR` replaces only what an earlier report wrote (issue 24, item 6).

A one-cell notebook (tables named by $CSRWH_TEST_TABLES) stands in for the statistics notebook,
so each run takes a kernel start, not a whole report. A user's files in ``DIR`` and
``DIR/tables/`` survive; a table an earlier report wrote and this one does not is removed; a
user's file where the report would write stops it, one line, before anything is replaced.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from csrwh.errors import CsrwhError
from csrwh.reading import report

NOTEBOOK = """# %%
import os

import polars as pl

from csrwh.reading import report as R

for name in os.environ["CSRWH_TEST_TABLES"].split(","):
    R.write_table(pl.DataFrame({"table": [name]}), name)
"""


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    notebook = tmp_path / "tiny.py"
    notebook.write_text(NOTEBOOK, encoding="utf-8")
    warehouse = tmp_path / "w.duckdb"
    warehouse.write_bytes(b"")  # the notebook never opens it

    def _run(out: Path, *tables: str) -> Path:
        monkeypatch.setenv("CSRWH_TEST_TABLES", ",".join(tables))
        return report.build_report(warehouse, out, notebooks=[notebook], progress=False)

    return _run


def test_report_keeps_the_users_files_and_replaces_its_own(run, tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "tables").mkdir(parents=True)
    mine = out / "tables" / "my_notes.csv"
    mine.write_text("mine\n", encoding="utf-8")
    beside = out / "draft.txt"
    beside.write_text("draft\n", encoding="utf-8")

    page = run(out, "alpha", "beta")
    assert mine.read_text(encoding="utf-8") == "mine\n"
    assert beside.read_text(encoding="utf-8") == "draft\n"
    assert sorted(p.name for p in (out / "tables").iterdir()) == [
        "alpha.csv",
        "beta.csv",
        "my_notes.csv",
    ]
    manifest = json.loads((out / report.MANIFEST_NAME).read_text(encoding="utf-8"))
    assert manifest["files"] == ["statistics.html", "tables/alpha.csv", "tables/beta.csv"]

    # a second report: its own stale table (beta) goes, the user's file stays
    assert run(out, "alpha", "gamma") == page
    assert sorted(p.name for p in (out / "tables").iterdir()) == [
        "alpha.csv",
        "gamma.csv",
        "my_notes.csv",
    ]
    assert mine.read_text(encoding="utf-8") == "mine\n"
    assert not list(out.glob(".csrwh-report-*")), "staging folder left behind"


def test_report_refuses_to_overwrite_a_users_file(run, tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "tables").mkdir(parents=True)
    clash = out / "tables" / "alpha.csv"
    clash.write_text("the user's alpha\n", encoding="utf-8")
    with pytest.raises(CsrwhError, match=r"alpha\.csv exists and was not written by csrwh report"):
        run(out, "alpha", "beta")
    assert clash.read_text(encoding="utf-8") == "the user's alpha\n"
    assert not (out / "tables" / "beta.csv").exists()
    assert not (out / report.REPORT_NAME).exists()
    assert not list(out.glob(".csrwh-report-*")), "staging folder left behind"

    page = tmp_path / "other" / report.REPORT_NAME
    page.parent.mkdir()
    page.write_text("<p>my own page</p>\n", encoding="utf-8")
    with pytest.raises(CsrwhError, match=r"statistics\.html exists and was not written"):
        run(page.parent, "alpha")
    assert page.read_text(encoding="utf-8") == "<p>my own page</p>\n"


def test_a_report_older_than_the_manifest_is_replaced_by_name(run, tmp_path: Path) -> None:
    """A folder an earlier release's report wrote (no manifest): its page and same-named
    tables are replaced, any other file is left alone."""
    out = tmp_path / "out"
    (out / "tables").mkdir(parents=True)
    (out / report.REPORT_NAME).write_text(
        f"<footer>{report.REPORT_MARKER} from the warehouse marts.</footer>", encoding="utf-8"
    )
    (out / "tables" / "alpha.csv").write_text("old\n", encoding="utf-8")
    (out / "tables" / "mine.csv").write_text("mine\n", encoding="utf-8")
    run(out, "alpha")
    assert (out / "tables" / "alpha.csv").read_text(encoding="utf-8") == "table\nalpha\n"
    assert (out / "tables" / "mine.csv").read_text(encoding="utf-8") == "mine\n"


def test_the_report_never_writes_through_a_hard_link(tmp_path: Path) -> None:
    """The page and the manifest are new files renamed into place: an earlier one that is a
    hard link to an input file leaves that file as it was."""
    from csrwh.reading.report import runner

    victim = tmp_path / "data" / "ratings.jsonl"
    victim.parent.mkdir()
    victim.write_bytes(b'{"id": 1}\n' * 7)
    out = tmp_path / "reports"
    out.mkdir()
    os.link(victim, out / runner.MANIFEST_NAME)
    os.link(victim, out / runner.REPORT_NAME)
    runner._replace_text(out / runner.REPORT_NAME, "<html></html>")
    runner._write_manifest(out, [runner.REPORT_NAME])
    assert victim.read_bytes() == b'{"id": 1}\n' * 7
    assert (out / runner.REPORT_NAME).read_text() == "<html></html>"
    assert json.loads((out / runner.MANIFEST_NAME).read_text())["files"] == [runner.REPORT_NAME]
