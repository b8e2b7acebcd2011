"""A report notebook that fails: one plain line (no colour codes off a terminal), and with
CSRWH_DEBUG=1 the failing cell's traceback."""

from __future__ import annotations

import duckdb
import pytest

from csrwh.cli.failures import _report
from csrwh.errors import CsrwhError
from csrwh.reading.report import build_report


@pytest.fixture(scope="module")
def failed(tmp_path_factory: pytest.TempPathFactory) -> CsrwhError:
    root = tmp_path_factory.mktemp("debug")
    warehouse = root / "w.duckdb"
    duckdb.connect(str(warehouse)).close()
    notebook = root / "failing.py"
    notebook.write_text(
        '# %%\ndef inner():\n    raise ValueError("boom in the notebook")\n\n\ninner()\n',
        encoding="utf-8",
    )
    with pytest.raises(CsrwhError) as info:
        build_report(warehouse, root / "out", notebooks=[notebook], progress=False)
    return info.value


def test_the_failure_is_one_line_without_colour_codes(failed: CsrwhError) -> None:
    assert failed.message == "notebook failing.py failed: ValueError: boom in the notebook"


def test_csrwh_debug_prints_the_cells_traceback(
    failed: CsrwhError, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("CSRWH_DEBUG", raising=False)
    _report(failed)
    plain = capsys.readouterr().err
    assert "inner()" not in plain and "boom in the notebook" in plain
    monkeypatch.setenv("CSRWH_DEBUG", "1")
    _report(failed)
    err = capsys.readouterr().err
    assert "\x1b[" not in err  # captured stderr is no terminal
    assert 'raise ValueError("boom in the notebook")' in err and "inner()" in err
