"""Golden files of the report's tables on the generated sample, and the comparison itself.

``tests/golden/report/*.csv`` are the ``tables/`` that ``csrwh report`` writes on the warehouse
built from ``csrwh.sample.generate(scale=1, seed=0)`` (what ``csrwh sample`` writes; it is
deterministic). ``test_report.py`` compares its run on that sample with them byte for byte
(:func:`assert_matches_golden`), except that a decimal cell may differ by FLOAT_REL_TOL
(relative): numpy picks SIMD kernels by CPU (AVX2, AVX-512), so the last bits of floats
differ between machines, and the bootstrap's L-BFGS-B fits carry them to the 6th decimal of
an interval bound (seen: 680.171938 against 680.171935). This module checks that the
comparison fails, with a diff naming the file and the line, when one value changes. After an intended change of a report
table, regenerate them and review the diff in git:

    .venv/bin/python tests/integration/test_report_golden.py --update
"""

from __future__ import annotations

import csv
import difflib
import math
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "report"
UPDATE = ".venv/bin/python tests/integration/test_report_golden.py --update"
MAX_DIFF_LINES = 40
#: relative difference allowed between two decimal cells (CPU-dependent float rounding)
FLOAT_REL_TOL = 1e-7


def _is_decimal(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return any(mark in cell for mark in ".eE") and cell.lower() not in ("nan", "inf", "-inf")


def _same_but_float_rounding(want: str, actual: str) -> bool:
    """The same table, but for decimal cells within FLOAT_REL_TOL of each other (integers,
    text and the line structure must match exactly)."""
    want_rows = list(csv.reader(want.splitlines()))
    actual_rows = list(csv.reader(actual.splitlines()))
    if want.endswith("\n") != actual.endswith("\n") or len(want_rows) != len(actual_rows):
        return False
    for want_row, actual_row in zip(want_rows, actual_rows, strict=True):
        if len(want_row) != len(actual_row):
            return False
        for a, b in zip(want_row, actual_row, strict=True):
            if a == b:
                continue
            if not (_is_decimal(a) and _is_decimal(b)):
                return False
            if not math.isclose(float(a), float(b), rel_tol=FLOAT_REL_TOL, abs_tol=0.0):
                return False
    return True


def golden_problems(tables: Path, golden: Path = GOLDEN) -> list[str]:
    """What differs between the written ``tables`` and the ``golden`` files: missing or
    unexpected tables, and per differing table a unified diff (at most MAX_DIFF_LINES lines)."""
    written = {p.name for p in tables.glob("*.csv")}
    expected = {p.name for p in golden.glob("*.csv")}
    problems = []
    if missing := sorted(expected - written):
        problems.append(f"tables not written (golden files exist): {', '.join(missing)}")
    if extra := sorted(written - expected):
        problems.append(f"tables without a golden file: {', '.join(extra)}")
    for name in sorted(written & expected):
        actual, want = (tables / name).read_bytes(), (golden / name).read_bytes()
        if actual == want or (
            b"\r" not in actual + want
            and _same_but_float_rounding(want.decode("utf-8"), actual.decode("utf-8"))
        ):
            continue
        diff = list(
            difflib.unified_diff(
                want.decode("utf-8").splitlines(),
                actual.decode("utf-8").splitlines(),
                fromfile=f"golden/{name}",
                tofile=f"written/{name}",
                lineterm="",
            )
        )
        if not diff:  # same lines, different bytes (line ends, final newline)
            diff = [f"{name}: same lines, different bytes (line ends or final newline)"]
        shown = diff[:MAX_DIFF_LINES]
        if len(diff) > MAX_DIFF_LINES:
            shown.append(f"... {len(diff) - MAX_DIFF_LINES} more diff lines")
        problems.append("\n".join(shown))
    return problems


def assert_matches_golden(tables: Path, golden: Path = GOLDEN) -> None:
    assert golden.is_dir() and any(golden.glob("*.csv")), f"no golden files in {golden}: {UPDATE}"
    problems = golden_problems(tables, golden)
    if problems:  # raised, not asserted: pytest would re-indent the diff of an assert message
        raise AssertionError(
            f"report tables differ from {golden.relative_to(ROOT)} "
            f"(if intended: {UPDATE}, and review the diff):\n" + "\n".join(problems)
        )


def update(golden: Path = GOLDEN) -> int:
    """Generate the sample, build it, run the report and copy its tables to ``golden``."""
    import os

    from csrwh.pipeline import build
    from csrwh.reading import report
    from csrwh.sample import generate

    with tempfile.TemporaryDirectory(prefix="csrwh-golden-") as tmp:
        root = Path(tmp)
        generate(root / "data", scale=1, seed=0)
        os.environ.setdefault("CSRWH_DBT_TARGET_PATH", str(root / "target"))
        result = build(root / "data", root / "warehouse" / "demo.duckdb")
        if not result.published:
            print("error: the sample build was not published", file=sys.stderr)
            return 1
        page = report.build_report(root / "warehouse" / "demo.duckdb", root / "report")
        if golden.exists():
            shutil.rmtree(golden)
        golden.mkdir(parents=True)
        for table in sorted((page.parent / "tables").glob("*.csv")):
            shutil.copyfile(table, golden / table.name)
    print(f"wrote {len(list(golden.glob('*.csv')))} golden tables to {golden}")
    return 0


# --------------------------------------------------------------------------- the comparison


@pytest.fixture()
def written(tmp_path: Path) -> Path:
    """A copy of the golden tables, as if the report had written exactly them."""
    tables = tmp_path / "tables"
    shutil.copytree(GOLDEN, tables)
    return tables


def test_golden_files_exist_for_the_report_tables() -> None:
    names = sorted(p.stem for p in GOLDEN.glob("*.csv"))
    assert "published_vs_warehouse" in names and "corpus_overview" in names, names


def test_identical_tables_pass(written: Path) -> None:
    assert golden_problems(written) == []
    assert_matches_golden(written)


def test_one_changed_value_fails_with_a_diff_naming_file_and_line(written: Path) -> None:
    path = written / "rating_summary.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    header, row = lines[0].rstrip("\n").split(","), lines[1].rstrip("\n").split(",")
    column = header.index("n_ratings")
    before = lines[1].rstrip("\n")
    row[column] = str(int(row[column]) + 1)
    after = ",".join(row)
    lines[1] = after + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(AssertionError) as err:
        assert_matches_golden(written)
    message = str(err.value)
    assert (
        "--- golden/rating_summary.csv" in message and "+++ written/rating_summary.csv" in message
    )
    assert f"-{before}" in message.splitlines() and f"+{after}" in message.splitlines()
    assert UPDATE in message


def _nudge_leaderboard_bound(written: Path, relative: float) -> tuple[str, str]:
    """Scale one interval bound of the leaderboard (a 6-decimal cell) by 1 + relative."""
    path = written / "crsarena_leaderboard.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    header, row = lines[0].rstrip("\n").split(","), lines[1].rstrip("\n").split(",")
    column = header.index("bt_ci_low")
    before = lines[1].rstrip("\n")
    row[column] = f"{float(row[column]) * (1.0 + relative):.6f}"
    lines[1] = ",".join(row) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    return before, lines[1].rstrip("\n")


def test_a_decimal_within_cpu_rounding_passes_and_beyond_it_fails(written: Path) -> None:
    before, after = _nudge_leaderboard_bound(written, 5e-9)  # the size seen between CPUs
    assert before != after
    assert golden_problems(written) == []
    _nudge_leaderboard_bound(written, 1e-5)
    problems = golden_problems(written)
    assert len(problems) == 1 and "golden/crsarena_leaderboard.csv" in problems[0]


def test_integers_and_text_get_no_tolerance(written: Path) -> None:
    path = written / "crsarena_leaderboard.csv"
    text = path.read_text(encoding="utf-8")
    header, row = text.splitlines()[0].split(","), text.splitlines()[1].split(",")
    row[header.index("battles")] = str(int(row[header.index("battles")]) + 1)
    path.write_text(text.replace(text.splitlines()[1], ",".join(row), 1), encoding="utf-8")
    assert len(golden_problems(written)) == 1


def test_missing_extra_and_byte_only_differences_fail(written: Path) -> None:
    (written / "corpus_overview.csv").unlink()
    (written / "new_table.csv").write_text("a\n1\n", encoding="utf-8")
    path = written / "intent_labels.csv"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    problems = golden_problems(written)
    assert problems[0] == "tables not written (golden files exist): corpus_overview.csv"
    assert problems[1] == "tables without a golden file: new_table.csv"
    assert "intent_labels.csv: same lines, different bytes" in problems[2]


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit(f"usage: {UPDATE}")
    sys.exit(update())
