"""Nothing a user types destroys data (issue 24, items 1, 7, 8, 9, 13) and what `csrwh sql` and
`csrwh describe` show (issue 25, item 10)."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import duckdb
import pytest
import yaml
from cli_run import one_error_line, run_cli, sha256

from csrwh import config
from csrwh.errors import CsrwhError
from csrwh.reading.query import run_query

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def warehouse(tmp_path: Path) -> Path:
    path = tmp_path / "wh" / "csr.duckdb"
    path.parent.mkdir()
    with duckdb.connect(str(path)) as con:
        con.execute(
            "create table main.conversations as select 'cosrec:' || range as conversation_id, "
            "range as n_turns, 'a turn with [/x] and [bold]markup[/bold]' as text, "
            "[range, range + 1] as ids from range(3)"
        )
    return path


# --------------------------------------------------------------------------- 24.1 sql outputs


def _targets(warehouse: Path, tmp_path: Path) -> dict[str, Path]:
    data = tmp_path / "data"
    (data / "cosrec").mkdir(parents=True)
    (data / "cosrec" / "conversations.jsonl").write_text("{}\n")
    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).close()
    link = tmp_path / "link.parquet"
    link.symlink_to(warehouse)
    state = warehouse.with_name(warehouse.name + ".build") / "state"
    state.mkdir(parents=True)
    for name in (".wal", ".lock", ".building-x", ".failed"):
        warehouse.with_name(warehouse.name + name).write_bytes(b"keep")
    (state / "build.json").write_text("{}")
    warehouse.with_name("csr.evals.duckdb").write_bytes(b"keep")
    (tmp_path / "a_file").write_text("keep")
    return {
        "warehouse": warehouse,
        "wal": warehouse.with_name(warehouse.name + ".wal"),
        "lock": warehouse.with_name(warehouse.name + ".lock"),
        "building": warehouse.with_name(warehouse.name + ".building-x"),
        "failed": warehouse.with_name(warehouse.name + ".failed"),
        "build-state": state / "build.json",
        "evals-sidecar": warehouse.with_name("csr.evals.duckdb"),
        "link-to-warehouse": link,
        "data-folder-file": data / "cosrec" / "conversations.jsonl",
        "data-folder-new-file": data / "new.csv",
        "directory": tmp_path,
        "under-a-file": tmp_path / "a_file" / "out.csv",
        "other-duckdb": other,
    }


TARGETS = [
    "warehouse",
    "wal",
    "lock",
    "building",
    "failed",
    "build-state",
    "evals-sidecar",
    "link-to-warehouse",
    "data-folder-file",
    "data-folder-new-file",
    "directory",
    "under-a-file",
    "other-duckdb",
]


@pytest.mark.parametrize("option", ["csv", "parquet"])
@pytest.mark.parametrize("kind", TARGETS)
def test_sql_output_that_would_destroy_data_is_refused(
    warehouse: Path, tmp_path: Path, kind: str, option: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _targets(warehouse, tmp_path)[kind]
    monkeypatch.setenv("CSRWH_DATA_DIR", str(tmp_path / "data"))
    before = {p: sha256(p) for p in warehouse.parent.rglob("*") if p.is_file()}
    before |= {p: sha256(p) for p in (tmp_path / "data").rglob("*") if p.is_file()}
    with pytest.raises(CsrwhError) as info:
        run_query(warehouse, "select 1 as x", **{option: target})
    assert info.value.exit_code == 2
    assert f"--{option} {target}" in info.value.message
    after = {p: sha256(p) for p in before}
    assert after == before
    assert not (tmp_path / "data" / "new.csv").exists()
    assert duckdb.connect(str(warehouse), read_only=True).execute("select 1").fetchone() == (1,)


def test_sql_parquet_onto_the_warehouse_through_the_cli_keeps_it(warehouse: Path) -> None:
    before = sha256(warehouse)
    result = run_cli("sql", "select 1", "--parquet", str(warehouse), "--warehouse", str(warehouse))
    assert result.returncode == 2
    assert "refusing to overwrite" in one_error_line(result)
    assert sha256(warehouse) == before


def test_sql_csv_dash_writes_standard_output(warehouse: Path, tmp_path: Path) -> None:
    result = run_cli(
        "sql",
        "select conversation_id, n_turns from conversations order by n_turns",
        "--csv",
        "-",
        "--warehouse",
        str(warehouse),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "conversation_id,n_turns",
        "cosrec:0,0",
        "cosrec:1,1",
        "cosrec:2,2",
    ]
    assert not (tmp_path / "-").exists()


def test_sql_parquet_dash_is_refused(warehouse: Path, tmp_path: Path) -> None:
    with pytest.raises(CsrwhError, match="binary"):
        run_query(warehouse, "select 1", parquet=Path("-"))


def test_sql_writes_nested_values_to_csv(warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "nested.csv"
    run_query(warehouse, "select ids from conversations order by n_turns", csv=out)
    assert out.read_text().splitlines() == ["ids", '"[0, 1]"', '"[1, 2]"', '"[2, 3]"']


# --------------------------------------------------------------------------- 24.13 + 25.10 printing


def test_sql_prints_values_as_text_not_markup_on_a_terminal(
    warehouse: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    run_query(warehouse, "select '[/x]' as \"[/y]\", text from conversations limit 1")
    out = capsys.readouterr().out
    assert "[/x]" in out and "[/y]" in out and "[bold]markup[/bold]" in out


def test_sql_markup_in_a_value_through_the_cli(warehouse: Path) -> None:
    result = run_cli("sql", "select '[/x]' as v", "--warehouse", str(warehouse))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.splitlines() == ["v", "[/x]"]


def test_piped_sql_output_is_plain_csv_and_never_wraps(warehouse: Path) -> None:
    long_text = "word " * 80
    query = (
        f"select 123456789012345678 as big, 3.14159265358979 as pi, '{long_text}' as long_text, "
        "text from conversations limit 2"
    )
    result = run_cli("sql", query, "--warehouse", str(warehouse))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3, result.stdout  # header + one line per record
    assert lines[0] == "big,pi,long_text,text"
    assert lines[1].startswith("123456789012345678,3.14159265358979,")
    assert long_text in lines[1]


def test_describe_dq_results_and_build_info_describe_every_column(tmp_path: Path) -> None:
    from csrwh.gate.results import _DQ_RESULTS_DDL
    from csrwh.pipeline.fingerprint import _record_build
    from csrwh.reading import catalog

    path = tmp_path / "wh.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute(_DQ_RESULTS_DDL)
        con.execute("create schema raw; create table raw.ingest_files (path varchar)")
    _record_build(path, "b1", tmp_path, "fp", "inputs")
    with duckdb.connect(str(path), read_only=True) as con:
        for table in ("dq_results", "build_info"):
            _info, cols = catalog.describe(con, table)
            assert len(cols) >= 7
            missing = [c.name for c in cols if not c.description.strip()]
            assert missing == [], (table, missing)
    result = run_cli("describe", "dq_results", "--warehouse", str(path))
    assert result.returncode == 0, result.stderr
    assert "—" not in result.stdout and "offending_rows" in result.stdout


def test_items_docs_say_cosrec_ships_ids_only_and_where_to_get_the_rest() -> None:
    models = yaml.safe_load((ROOT / "models/marts/core/_core__models.yml").read_text("utf-8"))
    items = next(m for m in models["models"] if m["name"] == "items")
    text = " ".join(items["description"].split())
    assert "CoSRec ships item ids only" in text
    assert "https://amazon-reviews-2023.github.io/" in text  # products: /work/shared cosrec.md
    assert "MS MARCO v2.1" in text


# --------------------------------------------------------------------------- 24.13 one-line errors


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e12", "1e400", "NaNGB"])
def test_bad_memory_limit_is_one_error(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(config.MEMORY_LIMIT_ENV, value)
    with pytest.raises(CsrwhError) as info:
        config.memory_limit_mb()
    assert config.MEMORY_LIMIT_ENV in info.value.message and info.value.exit_code == 2


@pytest.mark.parametrize("value", ["0", "-1", "x", "1.5", "²", "100000"])
def test_bad_threads_is_one_error(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(config.THREADS_ENV, value)
    with pytest.raises(CsrwhError) as info:
        config.threads()
    assert config.THREADS_ENV in info.value.message and info.value.exit_code == 2


def test_sane_env_values_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(config.MEMORY_LIMIT_ENV, "512MB")
    monkeypatch.setenv(config.THREADS_ENV, "1")
    config.check_env()
    assert config.memory_limit_mb() == int(512 * 10**6 / 2**20) and config.threads() == 1


@pytest.mark.parametrize("command", ["build", "ingest"])
@pytest.mark.parametrize(
    "env", [{"CSRWH_MEMORY_LIMIT": "nan"}, {"CSRWH_MEMORY_LIMIT": "inf"}, {"CSRWH_THREADS": "x"}]
)
def test_bad_env_is_checked_at_the_start_of_build_and_ingest(
    tmp_path: Path, command: str, env: dict[str, str]
) -> None:
    # no data folder at all: the env value is what is reported, before any other work
    result = run_cli(
        command,
        "--data-dir",
        str(tmp_path / "none"),
        "--warehouse",
        str(tmp_path / "wh.duckdb"),
        **env,
    )
    assert result.returncode == 2, result.stderr
    assert next(iter(env)) in one_error_line(result)
    assert not (tmp_path / "wh.duckdb").exists()


def test_dashboard_port_out_of_range_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("dashboard", "--port", "99999", "--warehouse", str(tmp_path / "wh.duckdb"))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "OverflowError" not in result.stderr
    assert "--port" in result.stderr and "65535" in result.stderr


@pytest.mark.parametrize(
    "code, says",
    [(errno.ENOTDIR, "is a file, not a folder"), (errno.EISDIR, "is a directory")],
)
def test_path_errors_are_one_line(code: int, says: str) -> None:
    from csrwh.cli import _os_error

    known = _os_error(OSError(code, os.strerror(code), "/some/where"))
    assert known is not None and says in known.message and "/some/where" in known.message


# --------------------------------------------------------------------------- 24.7 links, lock dir


@pytest.mark.parametrize("name", [".lock", ".build", ".failed"])
def test_build_refuses_links_for_the_files_it_creates(tmp_path: Path, name: str) -> None:
    from csrwh.pipeline import build

    warehouse = tmp_path / "wh" / "csr.duckdb"
    warehouse.parent.mkdir()
    victim = tmp_path / ("victim_dir" if name == ".build" else "victim.txt")
    if name == ".build":
        victim.mkdir()
    else:
        victim.write_text("precious")
    link = warehouse.with_name(warehouse.name + name)
    link.symlink_to(victim)
    with pytest.raises(CsrwhError, match="symbolic link"):
        build(tmp_path / "data", warehouse)
    assert link.is_symlink()
    if name == ".build":
        assert list(victim.iterdir()) == []
    else:
        assert victim.read_text() == "precious"


def test_lock_never_writes_through_a_link_made_after_the_check(tmp_path: Path) -> None:
    from csrwh.pipeline.lock import BuildLock, lock_path

    warehouse = tmp_path / "csr.duckdb"
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    lock_path(warehouse).symlink_to(victim)
    lock = BuildLock(warehouse, "b1")
    with pytest.raises(CsrwhError, match="symbolic link"):
        lock.acquire()
    assert victim.read_text() == "precious" and lock_path(warehouse).is_symlink()


def test_lock_that_is_a_directory_is_one_line(tmp_path: Path) -> None:
    warehouse = tmp_path / "csr.duckdb"
    warehouse.with_name(warehouse.name + ".lock").mkdir()
    result = run_cli("build", "--data-dir", str(tmp_path / "d"), "--warehouse", str(warehouse))
    assert result.returncode == 1
    assert "is a directory" in one_error_line(result)


# --------------------------------------------------------------------------- 24.8 sample --out


def test_sample_refuses_a_folder_of_real_files(tmp_path: Path) -> None:
    from csrwh.sample import generate

    real = tmp_path / "corpora"
    precious = real / "cosrec" / "dataset" / "raw" / "conversations.jsonl"
    precious.parent.mkdir(parents=True)
    precious.write_text('{"real": 1}\n')
    with pytest.raises(CsrwhError, match="did not write") as info:
        generate(real, corpora=["cosrec"])
    assert str(precious) in info.value.message
    assert precious.read_text() == '{"real": 1}\n'
    assert sorted(p.name for p in real.rglob("*")) == sorted(
        ["cosrec", "dataset", "raw", "conversations.jsonl"]
    )


def test_sample_refuses_other_files_and_links_in_its_output(tmp_path: Path) -> None:
    from csrwh.sample import generate

    out = tmp_path / "sample"
    generate(out, corpora=["crsarena"])
    generate(out, corpora=["crsarena"])  # its own output: fine (make demo re-runs it)
    (out / "notes.txt").write_text("mine")
    with pytest.raises(CsrwhError, match="notes.txt"):
        generate(out, corpora=["crsarena"])
    (out / "notes.txt").unlink()
    victim = tmp_path / "elsewhere"
    victim.mkdir()
    (out / "recoreact").symlink_to(victim)
    with pytest.raises(CsrwhError, match="recoreact"):
        generate(out)
    assert list(victim.iterdir()) == []


def test_sample_cli_refuses_and_reruns(tmp_path: Path) -> None:
    out = tmp_path / "s"
    first = run_cli("sample", "--out", str(out))
    assert first.returncode == 0, first.stderr
    again = run_cli("sample", "--out", str(out))
    assert again.returncode == 0, again.stderr
    mine = out / "recllmsim" / "mine.json"
    mine.write_text("{}")
    refused = run_cli("sample", "--out", str(out))
    assert refused.returncode == 2 and "did not write" in one_error_line(refused)
    assert mine.read_text() == "{}"
    (tmp_path / "f").write_text("x")
    under = run_cli("sample", "--out", str(tmp_path / "f" / "s"))
    assert under.returncode == 2 and "is a file" in one_error_line(under)


# --------------------------------------------------------------------------- 24.9 validate
