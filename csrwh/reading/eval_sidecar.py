"""``csrwh eval --save``: the *evaluations sidecar*, where saved evaluations live.

:func:`save_report` stores an evaluation (:class:`csrwh.reading.evaluate.EvalReport`) under a
name in :func:`sidecar_path` — ``<warehouse stem>.evals.duckdb`` next to the warehouse, a DuckDB
file of its own with tables ``eval_runs`` and ``eval_scores`` — because the published warehouse
is only ever replaced by a build (atomically, under its lock) and never written in place;
builds never touch the sidecar. The dashboard's Leaderboard page reads it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from csrwh.errors import CsrwhError
from csrwh.reading.evaluate import _number

if TYPE_CHECKING:
    from csrwh.reading.evaluate import EvalReport

SIDECAR_SUFFIX = ".evals.duckdb"

SIDECAR_DDL = """
create table if not exists eval_runs (
    run_name varchar not null,              -- the --save NAME
    kind varchar not null,                  -- judgments: one of the corpus' kinds, or all
    run_path varchar not null,              -- the run file as given (absolute)
    run_sha256 varchar not null,            -- sha256 of the run file
    saved_at timestamp with time zone not null,
    warehouse varchar,                      -- the published warehouse evaluated against
    build_id varchar,                       -- its build (main.build_info), NULL if it has none
    measures varchar[] not null,            -- ir_measures names
    n_topics_qrels integer not null,        -- topics in these qrels
    n_topics_evaluated integer not null,    -- of them, answered by the run (the aggregate's n)
    n_topics_missing integer not null,      -- of them, not answered (not counted)
    n_run_topics_unjudged integer not null, -- run topics the qrels do not judge (ignored)
    primary key (run_name, kind)
);
create table if not exists eval_scores (
    run_name varchar not null,
    kind varchar not null,
    measure varchar not null,
    topic_id varchar,                       -- NULL: the aggregate over the evaluated topics
    value double                            -- NULL: no topic evaluated for this kind
);
-- the judgments' collection (corpus id or custom:<name>); NULL in files saved before it was kept
alter table eval_runs add column if not exists collection varchar;
"""


def sidecar_path(warehouse: Path) -> Path:
    """``<warehouse stem>.evals.duckdb`` beside the warehouse (``csr.duckdb`` -> ``csr.evals.duckdb``)."""
    warehouse = Path(warehouse)
    return warehouse.with_name(warehouse.stem + SIDECAR_SUFFIX)


def _open_sidecar(path: Path):
    import duckdb

    try:
        return duckdb.connect(str(path))
    except duckdb.Error as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        busy = "lock" in first.lower()
        raise CsrwhError(
            f"cannot open the evaluations file {path} for writing: {first}",
            hint="another `csrwh eval --save` or the dashboard's Leaderboard has it open: retry in a moment"
            if busy
            else "it must be a DuckDB file written by `csrwh eval --save`; move it away to start a new one",
        ) from None


def _refuse_shared_file(sidecar: Path) -> None:
    """Refuse (one line) an evaluations file that is a link -- symbolic, or hard (more than one
    name): writing it would write through to another file, perhaps a corpus file."""
    import stat

    try:
        st = sidecar.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode) or (stat.S_ISREG(st.st_mode) and st.st_nlink > 1):
        what = (
            "a symbolic link" if stat.S_ISLNK(st.st_mode) else f"a hard link ({st.st_nlink} names)"
        )
        raise CsrwhError(
            f"the evaluations file {sidecar} is {what}; refusing to write through it",
            hint="move it away: the next `csrwh eval --save` starts a new one",
        )


def save_report(report: EvalReport, name: str, sidecar: Path, replace: bool = False) -> int:
    """Store ``report`` as ``name`` in ``sidecar`` (one transaction); returns the score rows
    written. A name already saved is refused unless ``replace``."""
    import contextlib
    import datetime as dt

    import duckdb

    name = name.strip()
    if not name or any(ch in name for ch in "\r\n\t"):
        raise CsrwhError(
            f"invalid run name {name!r}",
            hint="--save NAME: a non-empty name on one line",
            exit_code=2,
        )
    sidecar = Path(sidecar)
    _refuse_shared_file(sidecar)
    sidecar.parent.mkdir(parents=True, exist_ok=True)
    con = _open_sidecar(sidecar)
    try:
        con.execute("begin transaction")
        con.execute(SIDECAR_DDL)
        existing = con.execute(
            "select count(*) from eval_runs where run_name = ?", [name]
        ).fetchone()[0]
        if existing and not replace:
            con.execute("rollback")
            raise CsrwhError(
                f"an evaluation named {name!r} is already saved in {sidecar}",
                hint="choose another --save NAME, or add --replace to overwrite it",
            )
        con.execute("delete from eval_scores where run_name = ?", [name])
        con.execute("delete from eval_runs where run_name = ?", [name])
        saved_at = dt.datetime.now(dt.UTC)
        scores = []
        for ev in report.evaluations:
            con.execute(
                "insert into eval_runs (run_name, kind, run_path, run_sha256, saved_at, warehouse, "
                "build_id, measures, n_topics_qrels, n_topics_evaluated, n_topics_missing, "
                "n_run_topics_unjudged, collection) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    name,
                    ev.kind,
                    str(report.run_path.resolve()),
                    report.run_sha256,
                    saved_at,
                    None if report.warehouse is None else str(report.warehouse),
                    report.build_id,
                    ev.measures,
                    ev.n_topics_qrels,
                    ev.n_topics_evaluated,
                    ev.n_topics_missing,
                    ev.n_run_topics_unjudged,
                    report.collection or None,
                ],
            )
            scores += [(name, ev.kind, m, None, _number(ev.aggregate[m])) for m in ev.measures]
            scores += [
                (name, ev.kind, m, topic, values[m])
                for topic, values in sorted(ev.per_topic.items())
                for m in ev.measures
            ]
        if scores:
            con.executemany("insert into eval_scores values (?, ?, ?, ?, ?)", scores)
        con.execute("commit")
    except BaseException:
        with contextlib.suppress(duckdb.Error):  # already rolled back
            con.execute("rollback")
        raise
    finally:
        con.close()
    return len(scores)
