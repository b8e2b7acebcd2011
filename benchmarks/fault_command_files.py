"""User-command cases of benchmarks/faults.py, part 2: the user's files and input --
a stale WAL, broken votes, export and report into a user's folders, fetch from a bad zip or
mirror, rejects after an incremental build, non-finite ratings, a broken JSON element."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from fault_commands import (
    Case,
    _fetch_row,
    _zip,
    build,
    cli,
    files_of,
    one_line,
    register,
    rows_of,
    settle,
    user_data,
    wal_path_of,
)
from fault_harness import ROOT, fresh_site, query, readable, sha256


def rejected_lines(warehouse: Path, name_end: str) -> int:
    """Rejected records of the files whose path ends with ``name_end``."""
    sql = f"select count(*) from raw.rejected_records where source_path like '%{name_end}'"
    return query(warehouse, sql)[0][0]


def file_cases(case, baseline: Path, original: Path, data_dir: tuple[str, ...]) -> None:
    """Cases of the user's files and input."""

    @case("24.2", "stale WAL beside the published file, then build", "0, rebuilt, readers OK")
    def _(row, trial):
        warehouse = fresh_site(trial, baseline)
        n = rows_of(warehouse)
        writer = (
            "import duckdb, os, sys\n"
            "con = duckdb.connect(sys.argv[1])\n"
            "con.execute('pragma disable_checkpoint_on_shutdown')\n"
            "con.execute('set checkpoint_threshold = \\'1TB\\'')\n"
            "con.execute('create table main.stray as select 1 as x')\n"
            "os._exit(0)\n"
        )
        subprocess.run([sys.executable, "-c", writer, str(warehouse)], check=True, timeout=120)
        result = cli("build", "--warehouse", str(warehouse), *data_dir, cwd=trial)
        ok_reader = readable(warehouse) and not wal_path_of(warehouse).exists()
        settle(
            row,
            result,
            unchanged=None,
            lost=n - rows_of(warehouse),
            ok=result.returncode == 0 and ok_reader,
        )
        row.note = "" if ok_reader else "a WAL is left beside the published file"

    @case(
        "24.3",
        "two stray quotes 11 lines apart in votes_open.csv",
        "rejects those lines, none lost",
    )
    def _(row, trial):
        import csv

        data = user_data(trial, original)
        path = data / "crsarena-dial/data/votes_open.csv"
        with path.open(newline="", encoding="utf-8") as fh:
            n_records = sum(1 for _ in csv.reader(fh)) - 1
        lines = path.read_text("utf-8").splitlines(True)
        lines[2] = lines[2].rstrip("\n") + '"oops\n'
        lines[13] = lines[13].rstrip("\n") + 'oops"\n'
        path.write_text("".join(lines), "utf-8")
        warehouse = fresh_site(trial, baseline)
        result = build(trial, warehouse, data, "--allow-rejects")
        row.code = result.returncode
        landed = query(warehouse, "select count(*) from votes where environment = 'open'")[0][0]
        rejected = rejected_lines(warehouse, "votes_open.csv")
        # records neither landed nor covered by a rejected line (a reject is a line, a record
        # may span lines: an upper bound on what is lost, not an exact count)
        row.records_lost = max(0, n_records - landed - rejected)
        row.published_unchanged = None
        row.ok = row.code in (0, 3) and row.records_lost == 0 and one_line(result)
        row.note = f"{n_records} records: {landed} landed, {rejected} line(s) rejected"

    def user_folder(trial: Path) -> Path:
        folder = trial / "mine"
        folder.mkdir()
        (folder / "topics.tsv").write_text("my topics\n")
        return folder

    def user_tables(trial: Path) -> Path:
        folder = trial / "rep"
        (folder / "tables").mkdir(parents=True)
        (folder / "tables" / "mine.csv").write_text("a,b\n1,2\n")
        return folder / "tables"

    register(
        case,
        [
            Case(
                "24.5",
                "export --trec-dir <folder with the user's topics.tsv>",
                "refused; file untouched",
                lambda w, trial: (
                    "export",
                    "--out",
                    str(trial / "exp"),
                    "--trec-dir",
                    str(trial / "mine"),
                    "--warehouse",
                    str(w),
                ),
                frozenset({1, 2}),
                setup=user_folder,
            ),
            Case(
                "24.6",
                "report --out <folder with the user's tables/>",
                "the user's files kept",
                lambda w, trial: ("report", "--out", str(trial / "rep"), "--warehouse", str(w)),
                frozenset({0, 1, 2}),
                setup=user_tables,
            ),
        ],
        baseline,
    )

    # ---- 24.4: fetch checks what it got before it swaps a corpus folder
    @case(
        "24.4",
        "fetch convsearch --from-zip <garbage zip> --force",
        "1, refused; the corpus folder unchanged",
    )
    def _(row, trial):
        data = trial / "data"
        good = _zip(
            trial / "good.zip",
            {
                f"ConvSearch-v1.1-Main/{p.name}": p.read_bytes()
                for p in sorted((original / "convsearch").glob("*.json"))
            },
        )
        first = cli(
            "fetch", "convsearch", "--from-zip", str(good), "--data-dir", str(data), cwd=trial
        )
        if first.returncode != 0:
            raise RuntimeError(f"fetching the good zip failed: {first.stderr.strip()[-200:]}")
        bad = _zip(
            trial / "bad.zip",
            {"Dialogs.json": b"garbage garbage!!", "SearchBehaviors.json": b"x"},
        )
        before = files_of(data / "convsearch")
        result = cli(
            "fetch",
            "convsearch",
            "--from-zip",
            str(bad),
            "--force",
            "--data-dir",
            str(data),
            cwd=trial,
        )
        _fetch_row(
            row, result, before, files_of(data / "convsearch"), data, f"its {len(before)} files"
        )

    @case(
        "24.4",
        "fetch recllmsim --from-zip <one trivial file> --force",
        "1, refused; the corpus folder unchanged",
    )
    def _(row, trial):
        from csrwh.fetch import load_sources

        ref = load_sources()["corpora"]["recllmsim"]["ref"]
        real = ROOT.parent / "shared" / "corpora" / "recllmsim"
        source = real if real.is_dir() else original / "recllmsim"
        data = trial / "data"
        shutil.copytree(source, data / "recllmsim")
        trivial = _zip(
            trial / "trivial.zip",
            {f"RecLLMSim-{ref}/": b"", f"RecLLMSim-{ref}/x/0.json": b'{"history": []}'},
            comment=ref,
        )
        before = files_of(data / "recllmsim")
        result = cli(
            "fetch",
            "recllmsim",
            "--from-zip",
            str(trivial),
            "--force",
            "--data-dir",
            str(data),
            cwd=trial,
        )
        what = "the real" if source == real else "the sample's"
        _fetch_row(
            row, result, before, files_of(data / "recllmsim"), data, f"{what} {len(before)} files"
        )

    @case(
        "24.4",
        "fetch recoreact from a mirror serving a 0-byte hub file",
        "1, refused; no folder created",
    )
    def _(row, trial):
        import functools
        import threading
        from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

        www = trial / "www"
        hub = www / "huggingface.co/datasets/microsoft/RecoReact/resolve/main"
        hub.mkdir(parents=True)
        for domain in ("news", "travel", "meals"):  # the sample has no RecoReact: 3 records each
            for entity in ("products", "users", "impressions"):
                lines = (f'{{"id": "{domain}-{entity}-{i}"}}\n' for i in range(3))
                (hub / f"{domain}-{entity}.jsonl").write_text("".join(lines), "utf-8")
        (hub / "news-users.jsonl").write_bytes(b"")

        class Quiet(SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=www))
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        try:
            data = trial / "data"
            result = cli(
                "fetch",
                "recoreact",
                "--data-dir",
                str(data),
                cwd=trial,
                env={"CSRWH_MIRROR": f"http://127.0.0.1:{httpd.server_address[1]}/"},
            )
        finally:
            httpd.shutdown()
            httpd.server_close()
        _fetch_row(row, result, {}, {}, data, "")
        created = (data / "recoreact").exists()
        row.ok = row.ok and not created
        if created:
            row.note = f"{row.note}; a recoreact folder was created".lstrip("; ")

    # ---- 24.10: the rejects summary follows raw.rejected_records after an incremental build
    @case(
        "24.10",
        "2 bad CoSRec lines, incremental build --allow-rejects",
        "0, raw.rejected_records = rejected_records_summary = 2",
    )
    def _(row, trial):
        data = user_data(trial, original)
        with (data / "cosrec/dataset/raw/conversations.jsonl").open("a", encoding="utf-8") as fh:
            fh.write('{"CoSRec-Raw_bad1": oops}\n[1, 2]\n')
        # published from the same data less the 2 lines, with its saved dbt state: incremental
        warehouse = fresh_site(trial, baseline, with_state=True)
        n = rows_of(warehouse)
        result = build(trial, warehouse, data, "--allow-rejects")
        row.code = result.returncode
        selective = "selective build:" in result.stdout + result.stderr
        row.published_unchanged = None
        sql = cli(
            "sql",
            "select (select count(*) from raw.rejected_records), "
            "(select sum(n_rejected) from rejected_records_summary)",
            "--csv",
            "-",
            "--warehouse",
            str(warehouse),
            "--data-dir",
            str(data),
            cwd=trial,
        )
        raw_n, summary_n = (int(v or 0) for v in sql.stdout.strip().splitlines()[-1].split(","))
        # the 2 appended lines: lost = those neither rejected, plus conversations rows lost
        row.records_lost = max(0, 2 - raw_n) + (n - rows_of(warehouse))
        row.ok = (
            row.code == 0
            and selective
            and (raw_n, summary_n) == (2, 2)
            and not row.records_lost
            and one_line(result)
        )
        row.note = (
            f"{'selective' if selective else '**full** (not selective)'} build: "
            f"raw.rejected_records {raw_n}, rejected_records_summary {summary_n}"
        )

    # ---- 24.11: non-finite numbers are rejected at ingest
    @case(
        "24.11",
        "custom ratings 1e400 and NaN, build",
        "3, refused (published unchanged); both lines rejected verbatim",
    )
    def _(row, trial):
        data = user_data(trial, original)
        bad = [
            '{"id":"c1","messages":[{"role":"user","text":"q"}],"ratings":{"q":1e400}}',
            '{"id":"c2","messages":[{"role":"user","text":"q"}],"ratings":{"q":NaN}}',
        ]
        good = '{"id":"c0","messages":[{"role":"user","text":"q"}],"ratings":{"q":1}}'
        (data / "custom/alpha").mkdir(parents=True)
        (data / "custom/alpha/a.jsonl").write_text("\n".join([good, *bad]) + "\n", "utf-8")
        warehouse = fresh_site(trial, baseline)
        before, n = sha256(warehouse), rows_of(warehouse)
        result = build(trial, warehouse, data)
        row.code = result.returncode
        row.published_unchanged = sha256(warehouse) == before
        # where the rejects are kept: the same build with --allow-rejects, on another copy
        told = trial / "told" / "csr.duckdb"
        told.parent.mkdir()
        shutil.copy2(baseline, told)
        allowed = build(trial, told, data, "--allow-rejects")
        kept = query(
            told,
            "select raw_text, error from raw.rejected_records where source_path like '%a.jsonl'",
        )
        verbatim = {text.strip() for text, error in kept if "non-finite number" in error}
        bad_values = query(told, "select count(*) from ratings where isnan(value) or isinf(value)")[
            0
        ][0]
        row.records_lost = sum(line not in verbatim for line in bad) + max(
            0, n - rows_of(warehouse)
        )
        row.ok = (
            row.code == 3
            and row.published_unchanged
            and not row.records_lost
            and allowed.returncode == 0
            and bad_values == 0
            and one_line(result)
        )
        row.note = (
            f"with --allow-rejects: exit {allowed.returncode}, {len(verbatim)} of 2 lines kept "
            f"verbatim as non-finite, {bad_values} non-finite ratings"
        )

    # ---- 24.12: a JSON array element missing its `{` is the only reject
    @case(
        "24.12",
        "crs_arena_dial_open.json element 3 missing its opening brace, build --allow-rejects",
        "exactly 1 reject, n-1 land",
    )
    def _(row, trial):
        import json

        data = user_data(trial, original)
        path = data / "crsarena-dial/data/crs_arena_dial_open.json"
        text = path.read_text("utf-8")
        elements = json.loads(text)
        marker = f'"conversation ID": {json.dumps(elements[2]["conversation ID"])}'
        at = text.rindex("{", 0, text.index(marker))  # the `{` that opens element 3
        path.write_text(text[:at] + text[at + 1 :], "utf-8")
        warehouse = fresh_site(trial, baseline)
        n = rows_of(warehouse)
        result = build(trial, warehouse, data, "--allow-rejects")
        row.code = result.returncode
        row.published_unchanged = None
        rejected = rejected_lines(warehouse, "dial_open.json")
        ids = {e["conversation ID"] for e in elements}
        landed = query(
            warehouse,
            "select count(distinct record_key) from raw.crsarena__dialogues",
        )[0][0]
        landed_open = sum(
            1
            for (key,) in query(
                warehouse, "select distinct record_key from raw.crsarena__dialogues"
            )
            if key in ids
        )
        # records of the file neither landed nor rejected, plus conversations rows lost beyond
        # the one broken element
        row.records_lost = max(0, len(elements) - landed_open - rejected) + max(
            0, n - 1 - rows_of(warehouse)
        )
        row.ok = (
            row.code in (0, 3)
            and rejected == 1
            and landed_open == len(elements) - 1
            and not row.records_lost
            and one_line(result)
        )
        row.note = (
            f"{len(elements)} elements: {landed_open} landed, {rejected} rejected "
            f"({landed} dialogues in raw)"
        )
