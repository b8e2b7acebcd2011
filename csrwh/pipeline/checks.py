"""The safety checks and endings of a build: a live writer, a stale WAL, refusals, a kept
failed build, cleanup after an interrupt."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from rich.markup import escape

from csrwh.errors import CsrwhError
from csrwh.pipeline.display import console
from csrwh.pipeline.paths import _remove_db, _sql_str, failed_path, wal_path
from csrwh.pipeline.result import EXIT_REFUSED
from csrwh.pipeline.state import _read_state, _State, _Volume, _volume_tables


class _Checks:
    """The checks and endings of :class:`csrwh.pipeline.job._Build`."""

    def _check_no_writer(self) -> None:
        """Refuse when another process has the published file open for writing."""
        import duckdb

        con = duckdb.connect(":memory:")
        try:
            con.execute(f"attach '{_sql_str(self.warehouse)}' as w (read_only)")
        except duckdb.Error as exc:
            text = str(exc)
            if "lock" in text.lower():
                raise CsrwhError(
                    f"{self.warehouse} is open for writing by another process ({text.splitlines()[0][:200]}); "
                    "not building over it",
                    hint="close that program (csrwh itself only ever replaces the published file) and retry",
                ) from None
            # e.g. a WAL that does not belong to the file: readers fail too; the build repairs it
        finally:
            con.close()

    def _fold_wal(self) -> None:
        """The published file has a WAL nobody holds: fold it into the working copy."""
        import duckdb

        stale = wal_path(self.warehouse)
        shutil.copy2(stale, wal_path(self.work))
        try:
            with duckdb.connect(str(self.work)) as con:
                con.execute("checkpoint")
        except duckdb.Error as exc:
            _remove_db(self.work)
            shutil.copy2(self.warehouse, self.work)
            self.note(
                f"{stale.name} does not belong to {self.warehouse.name} ({str(exc).splitlines()[0][:160]}); "
                "building without it"
            )
        else:
            self.note(f"folded {stale.name} (left by a writer that did not close) into the build")

    def _published_state(self) -> _State | None:
        """The published build's inputs, corpora, rejects and row counts (None: no published build)."""
        raw_tables, mart_tables = _volume_tables()
        source = self.work if self.work.exists() else self.warehouse
        if not self.warehouse.exists():
            return None
        try:
            return _read_state(source, raw_tables + mart_tables)
        except Exception as exc:  # noqa: BLE001 - an unreadable published file is replaced
            self.note(
                f"cannot read the published {self.warehouse.name} ({str(exc).splitlines()[0][:160]}); "
                "the checks against it are skipped"
            )
            return None

    def _input_refusals(self, published: _State | None, missing: list[str]) -> list[str]:
        refusals: list[str] = []
        now = _read_state(self.work)
        pub_rejects = published.rejects if published else {}
        new = {
            k: n - pub_rejects.get(k, 0)
            for k, n in now.rejects.items()
            if n > pub_rejects.get(k, 0)
        }
        if new:
            n_new = sum(new.values())
            files = sorted({f"{c}:{p}" for c, p, _ in new})
            line = (
                f"{n_new} rejected record(s) the published warehouse did not have, in {', '.join(files[:3])}"
                + (f" and {len(files) - 3} more file(s)" if len(files) > 3 else "")
            )
            if self.allow_rejects:
                self.result.accepted.append(line + " (accepted: --allow-rejects)")
            else:
                refusals.append(line + "; accept them with --allow-rejects")
        if published is not None:
            for corpus in sorted(set(missing) & published.corpora):
                line = f"corpus {corpus} is in the published warehouse but its folder is missing from {self.data_dir}"
                if corpus in self.dropped:
                    self.result.accepted.append(line + f" (dropped: --drop-corpus {corpus})")
                else:
                    refusals.append(line + f"; drop it with --drop-corpus {corpus}")
        return refusals

    def _shrink_refusals(self, volumes: list[_Volume]) -> list[str]:
        out = []
        for v in volumes:
            if not v.too_much:
                continue
            line = (
                f"{v.table} shrank from {v.published} to {v.building} rows ({v.shrink:.0%}, more than "
                f"{v.max_shrink:.0%})"
            )
            if self.allow_shrink:
                self.result.accepted.append(line + " (accepted: --allow-shrink)")
            else:
                out.append(line + "; accept it with --allow-shrink")
        return out

    # -- endings ---------------------------------------------------------------------
    def refuse(self, refusals: list[str]) -> None:
        kept = self.keep_failed()
        for line in refusals:
            console.print(f"  [red]✗[/red] {escape(line)}")
        first = refusals[0].split("; ")[0]
        more = f" (+{len(refusals) - 1} more above)" if len(refusals) > 1 else ""
        flags = sorted(
            {
                f
                for f in ("--allow-rejects", "--drop-corpus", "--allow-shrink")
                if any(f in r for r in refusals)
            }
        )
        raise CsrwhError(
            f"build {self.build_id} not published: {first}{more}; {self.warehouse} was left untouched",
            hint=f"accept with {' / '.join(flags)} after checking"
            + (
                f"; the refused build is kept at {kept} (see raw.rejected_records, main.dq_results)"
                if kept
                else ""
            ),
            exit_code=EXIT_REFUSED,
        )

    def keep_failed(self) -> Path | None:
        """Keep the working file as ``<warehouse>.failed`` (an old one never blocks this)."""
        if not self.work.exists():
            return None
        from csrwh.gate import data_docs

        target = failed_path(self.warehouse)
        try:
            _remove_db(target)
            os.replace(self.work, target)
        except OSError:
            target = target.with_name(f"{target.name}-{self.build_id}")
            try:
                os.replace(self.work, target)
            except OSError:
                _remove_db(self.work)
                data_docs.discard(self.work)
                return None
        try:
            data_docs.move(self.work, target)
        except OSError:
            data_docs.discard(self.work)
        return target

    def cleanup(self) -> None:
        """After an interrupt or an error: remove dbt's link and the working file (dbt's process
        has ended: :func:`csrwh.pipeline.dbt_runner.run_dbt` waits for it)."""
        if self.dbt_db != self.work:
            _remove_db(self.dbt_db)  # the hard link (and a WAL of it) only; never raises
            self.dbt_db = self.work
        shutil.rmtree(self.new_state, ignore_errors=True)
        if not self.result.published:
            _remove_db(self.work)
            from csrwh.gate import data_docs

            data_docs.discard(self.work)
