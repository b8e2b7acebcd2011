"""Selective rebuilds (package doc, "Rebuilds"): the saved dbt state of the published build,
what to select, the carried-over results, and the build's dbt-state phases."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from rich.markup import escape

from csrwh.config import PROJECT_ROOT
from csrwh.errors import CsrwhError
from csrwh.pipeline.dbt_runner import DbtOutcome, dbt_target_path
from csrwh.pipeline.display import console
from csrwh.pipeline.paths import _remove_db, dbt_path, state_dir, wal_path
from csrwh.pipeline.state import _ingest_files, _State, changed_raw_tables
from csrwh.pipeline.uptodate import PUBLISHED_KEY, published_stat
from csrwh.version import __version__


def _state_compat() -> dict[str, str]:
    """What must be equal for a saved dbt state to be compared with: tool versions and the
    project files dbt's state comparison does not see through (vars, profile settings)."""
    from dbt.version import __version__ as dbt_version

    files = hashlib.sha256()
    for name in ("dbt_project.yml", "profiles/profiles.yml"):
        files.update((PROJECT_ROOT / name).read_bytes() + b"\0")
    return {"csrwh": __version__, "dbt": str(dbt_version), "project_files": files.hexdigest()}


def _saved_state(warehouse: Path, published_build: str | None) -> tuple[str | None, dict]:
    """(why the saved state cannot be used or None, build.json with raw_sources as a set)."""
    folder = state_dir(warehouse)
    try:
        info = json.loads((folder / "build.json").read_text("utf-8"))
    except (OSError, ValueError):
        return f"no saved dbt state of the published build in {folder}", {}
    if not (folder / "manifest.json").is_file():
        return f"no saved dbt manifest in {folder}", {}
    if info.get("build_id") != published_build:
        saved = info.get("build_id")
        return (
            f"the saved dbt state is of build {saved}, not of the published {published_build}",
            {},
        )
    compat = info.get("compat", {})
    now = _state_compat()
    for key, what in (
        ("csrwh", "csrwh's version"),
        ("dbt", "dbt's version"),
        ("project_files", "dbt_project.yml or profiles/profiles.yml"),
    ):
        if compat.get(key) != now[key]:
            return f"{what} changed since the published build", {}
    info["raw_sources"] = set(info.get("raw_sources", []))
    return None, info


@dataclass
class _Selection:
    """A selective rebuild: the raw tables whose files changed and whether project code did."""

    raw_tables: set[str]
    code_changed: bool
    saved_suites: dict[str, str]
    #: the published warehouse and this build's database: a rebuilt table whose rows are the
    #: same in both changes no suite's outcome (:meth:`suites`); None: not compared
    published: Path | None = None
    work: Path | None = None

    @property
    def select(self) -> list[str]:
        from csrwh.dbt_support.dbt_sources import raw_tables

        # each corpus is a dbt source in schema raw (models/staging/<corpus>/_<corpus>__sources.yml)
        # a raw table without a dbt source has nothing downstream to rebuild
        declared = raw_tables()
        out = [
            f"source:{declared[table].source}.{declared[table].name}+"
            for table in sorted(self.raw_tables | self.bookkeeping)
            if table in declared
        ]
        if self.code_changed:
            out.append("state:modified+")
        return out

    @property
    def bookkeeping(self) -> set[str]:
        """The ingest's own tables (``raw.rejected_records``, ``raw.ingest_files``, …): they
        change whenever a raw table's files do, so the marts reading them (e.g.
        ``rejected_records_summary``) rebuild with every re-ingest."""
        from ingest.schema import BOOKKEEPING

        return set(BOOKKEEPING) if self.raw_tables else set()

    def describe(self) -> str:
        tables = ", ".join(sorted(self.raw_tables)) or "none"
        if self.bookkeeping:
            tables += " (and the ingest's bookkeeping tables)"
        code = "; models, tests or suites changed (state:modified+)" if self.code_changed else ""
        return f"raw tables re-ingested: {tables}{code}; the rest is carried over from the published build"

    def suites(self, outcome: DbtOutcome) -> list[str]:
        """Suites to re-run: those whose YAML changed and those that read a changed table (their
        own or one their SQL names: csrwh.gate.carry.suite_tables). A table changed
        when its raw files were re-ingested, or when dbt rebuilt it (model or seed of that
        name) and its columns or rows differ from the published warehouse's (a
        rebuilt mart with the same rows keeps its suites' published outcomes)."""
        from csrwh.gate.carry import suite_tables, unchanged_tables
        from csrwh.gate.suites import load_suites, suite_digests

        specs = load_suites()
        digests = suite_digests()
        reads = suite_tables(specs)
        rebuilt_names = {
            uid.split(".")[-1] for uid in outcome.timings if uid.startswith(("model.", "seed."))
        }
        read = set().union(*(tables for tables in reads.values() if tables is not None))
        rebuilt = {t for t in read if t.split(".", 1)[1] in rebuilt_names}
        if self.published is not None and self.work is not None:
            rebuilt -= unchanged_tables(self.published, self.work, rebuilt)
        changed = {f"raw.{t}" for t in self.raw_tables | self.bookkeeping} | rebuilt
        again = [
            spec.name
            for spec in specs
            if reads[spec.name] is None
            or reads[spec.name] & changed
            or self.saved_suites.get(spec.name) != digests.get(spec.name)
        ]
        console.print(
            f"expectations: {len(again)} suite(s) to run again, {len(specs) - len(again)} "
            "carried over (none of the tables they read changed)"
        )
        return again


def _carry_over(database: Path, previous: str, build_id: str, outcome: DbtOutcome) -> None:
    """Copy into ``build_id`` the published build's dq_results of what this build did not check
    again (suites not re-run, open_vocabulary tests dbt did not run, the lineage completeness
    of raw tables whose key paths were not scanned again), so the build's results describe
    the whole warehouse. Their ``validated_at`` stays the original one."""
    import duckdb

    from csrwh.gate.suites import load_suites
    from csrwh.pipeline.lineage import SUITE as LINEAGE
    from csrwh.pipeline.novelty import OPEN_VOCABULARY

    suites = [spec.name for spec in load_suites()]
    executed = list(outcome.timings)
    with duckdb.connect(str(database)) as con:
        present = con.execute(
            "select count(*) from duckdb_tables() where schema_name = 'main' "
            "and table_name = 'dq_results'"
        ).fetchone()[0]
        if not present:
            return
        columns = [
            c
            for (c,) in con.execute(
                "select column_name from duckdb_columns() where schema_name = 'main' "
                "and table_name = 'dq_results' and column_name <> 'run_id' order by column_index"
            ).fetchall()
        ]
        listed = ", ".join(f'"{c}"' for c in columns)
        con.execute(
            f"insert into main.dq_results (run_id, {listed}) "
            f"select ?, {listed} from main.dq_results as published "
            "where published.run_id = ? and ("
            "  (list_contains(?, published.suite) and published.suite not in "
            "     (select suite from main.dq_results where run_id = ?))"
            "  or (published.suite = ? and not list_contains(?, published.expectation))"
            "  or (published.suite = ? and published.table_name not in "
            "     (select table_name from main.dq_results where run_id = ? and suite = ?)))",
            [
                build_id,
                previous,
                suites,
                build_id,
                OPEN_VOCABULARY,
                executed,
                LINEAGE,
                build_id,
                LINEAGE,
            ],
        )


# --------------------------------------------------------------------------- the build


class _DbtState:
    """The selection and dbt-state steps of :class:`csrwh.pipeline.job._Build`."""

    def _plan(self, published: _State | None, fingerprint: str) -> _Selection | None:
        """What dbt builds: None = every node; else the raw tables that changed and their
        descendants, plus what changed in the project (dbt ``state:modified+``)."""
        if self.full_refresh or published is None:
            return None
        if self.full:
            console.print("full build: --full")
            return None
        if self.repair is not None:
            console.print(f"full build: {escape(self.repair)}", soft_wrap=True)
            self.result.notes.append(f"full build: {self.repair}")
            return None
        problem, saved = _saved_state(self.warehouse, published.build_id)
        changed = changed_raw_tables(self.published_files, _ingest_files(self.work))
        if problem is None:
            unknown = sorted(changed - saved.get("raw_sources", set()))
            if unknown:
                problem = f"raw table(s) {', '.join(unknown)} are not sources in the saved manifest"
        if problem is not None:
            console.print(f"full build: {escape(problem)}", soft_wrap=True)
            self.result.notes.append(f"full build: {problem}")
            return None
        selection = _Selection(
            raw_tables=changed,
            code_changed=published.fingerprint != fingerprint,
            saved_suites=saved.get("suites", {}),
            published=self.warehouse,
            work=self.work,
        )
        console.print(f"selective build: {escape(selection.describe())}", soft_wrap=True)
        self.result.notes.append(f"selective build: {selection.describe()}")
        return selection

    def _link_for_dbt(self) -> Path:
        """Hard-link the working file to dbt_path() so dbt's profile path never changes."""
        link = dbt_path(self.warehouse)
        try:
            link.parent.mkdir(parents=True, exist_ok=True)
            _remove_db(link)
            os.link(self.work, link)
        except OSError as exc:
            console.print(
                f"note: cannot hard-link {self.work.name} to {link} ({exc.strerror}); dbt will "
                "reparse the project"
            )
            return self.work
        return link

    def _unlink_for_dbt(self) -> None:
        if self.dbt_db != self.work:
            if wal_path(self.dbt_db).exists():  # dbt's database was not checkpointed
                raise CsrwhError(
                    f"build {self.build_id}: {wal_path(self.dbt_db)} still holds unwritten changes",
                    hint="another process may have the building database open; retry the build",
                )
            _remove_db(self.dbt_db)
            self.dbt_db = self.work

    def _stage_state(self) -> None:
        """Keep this dbt run's manifest for the next build (published with the warehouse)."""
        shutil.rmtree(self.new_state, ignore_errors=True)
        manifest = dbt_target_path() / "manifest.json"
        if not manifest.is_file():
            return
        from csrwh.gate.suites import suite_digests

        self.new_state.mkdir(parents=True)
        shutil.copy2(manifest, self.new_state / "manifest.json")
        # the raw tables dbt reads: sources in schema raw (one dbt source per corpus)
        sources = sorted(
            node.get("identifier") or node["name"]
            for node in json.loads(manifest.read_text("utf-8")).get("sources", {}).values()
            if node.get("schema") == "raw"
        )
        info = {
            "build_id": self.build_id,
            "compat": _state_compat(),
            "raw_sources": sources,
            "suites": suite_digests(),
        }
        (self.new_state / "build.json").write_text(json.dumps(info, indent=1), "utf-8")

    def _publish_state(self) -> None:
        """Replace the saved state by this build's (after the warehouse was published)."""
        current = state_dir(self.warehouse)
        old = current.with_name(f"state.old-{self.build_id}")
        try:
            if current.exists():
                os.replace(current, old)
            if self.new_state.exists():
                info_file = self.new_state / "build.json"
                if info_file.is_file():  # what the next build's up-to-date check compares
                    info = json.loads(info_file.read_text("utf-8"))
                    info[PUBLISHED_KEY] = published_stat(self.warehouse)
                    info_file.write_text(json.dumps(info, indent=1), "utf-8")
                os.replace(self.new_state, current)
        except (OSError, ValueError) as exc:  # the next build notices and builds in full
            self.note(
                f"could not save dbt's state in {current} ({getattr(exc, 'strerror', None) or exc})"
            )
        shutil.rmtree(old, ignore_errors=True)
