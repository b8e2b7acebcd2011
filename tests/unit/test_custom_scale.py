"""The own-corpus scale generator and the RecLLMSim converter (csrwh/sample/custom_scale/,
issue 23): deterministic, valid per the documented format, calibrated sizes, language mix,
streaming; the converter keeps every message. The real-data checks are in
tests/integration/test_custom_scale_real.py."""

from __future__ import annotations

import inspect
import itertools
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from csrwh.errors import CsrwhError
from csrwh.sample import custom_scale as cs
from ingest.custom import conversation_problems

CJK = re.compile(r"[\u4e00-\u9fff]")


def lines_of(folder: Path) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted(folder.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def texts(records: list[dict], role: str) -> list[str]:
    return [m["text"] for r in records for m in r["messages"] if m["role"] == role]


# ----------------------------------------------------------------------------- generator


def test_generated_is_deterministic_by_seed_and_prefix_stable(tmp_path):
    a = cs.write_generated(tmp_path / "a", 120, seed=7, lines_per_file=50)
    b = cs.write_generated(tmp_path / "b", 120, seed=7, lines_per_file=50)
    c = cs.write_generated(tmp_path / "c", 120, seed=8, lines_per_file=50)
    assert [p.name for p in a.files] == ["corpus.json", *(f"part-{i:05d}.jsonl" for i in range(3))]
    for pa, pb in zip(a.files, b.files, strict=True):
        assert pa.read_bytes() == pb.read_bytes()
    assert lines_of(a.folder) != lines_of(c.folder)
    # conversation i does not depend on how many are written
    assert list(cs.iter_conversations(30, seed=7)) == lines_of(a.folder)[:30]
    assert a.lines == 120 and a.bytes == sum(p.stat().st_size for p in a.files[1:])


def test_generated_lines_follow_the_documented_format(tmp_path):
    written = cs.write_generated(tmp_path, 300, seed=1)
    records = lines_of(written.folder)
    assert len(records) == 300 == len({r["id"] for r in records})
    corpus = json.loads((written.folder / "corpus.json").read_text(encoding="utf-8"))
    scales = corpus["rating_scales"]
    for record in records:
        assert conversation_problems(record) == [], record["id"]
        messages = record["messages"]
        assert cs.MIN_MESSAGES <= len(messages) <= cs.MAX_MESSAGES
        turns = [m["role"] for m in messages if m["role"] != "system"]
        assert turns[0] == "user" and "assistant" in turns
        assert all(a != b for a, b in itertools.pairwise(turns)), "roles alternate"
        for aspect, value in record.get("ratings", {}).items():
            assert scales[aspect]["min"] <= value <= scales[aspect]["max"]
        for m in messages:
            if "rating" in m:
                assert (
                    scales["message_rating"]["min"]
                    <= m["rating"]
                    <= scales["message_rating"]["max"]
                )
    # the optional parts are on some conversations, not on all nor none
    for present in (
        lambda r: "ratings" in r,
        lambda r: any("labels" in m for m in r["messages"]),
        lambda r: any("rating" in m for m in r["messages"]),
        lambda r: r["messages"][0]["role"] == "system",
        lambda r: "subset" in r,
        lambda r: "metadata" in r,
    ):
        assert 0 < sum(map(present, records)) < len(records)


def test_generated_language_mix(tmp_path):
    records = list(cs.iter_conversations(400, seed=2))
    users = [next(m["text"] for m in r["messages"] if m["role"] == "user") for r in records]
    chinese = [bool(CJK.search(t)) for t in users]
    assert 0.4 <= sum(chinese) / len(records) <= 0.6
    for record, zh in zip(records, chinese, strict=True):
        body = "".join(m["text"] for m in record["messages"] if m["role"] != "system")
        if zh:
            assert len(CJK.findall(body)) > 0.5 * len(body)
        else:
            assert not CJK.search(body) and body.isascii()
    only_zh = list(cs.iter_conversations(50, seed=2, zh_share=1.0))
    assert all(CJK.search(t) for t in texts(only_zh, "user"))


@pytest.mark.parametrize(
    ("role", "table"),
    [("user", cs.USER_MESSAGE_BYTES), ("assistant", cs.ASSISTANT_MESSAGE_BYTES)],
)
def test_generated_message_sizes_follow_the_calibration(role, table):
    """Median and 90th percentile of UTF-8 message sizes within 15% of the calibrated quantiles,
    in either language (English messages about as many bytes as Chinese ones)."""
    records = list(cs.iter_conversations(1500, seed=3))
    median, p90 = table[cs.QUANTILES.index(50)], table[cs.QUANTILES.index(90)]
    for zh in (True, False):
        sizes = sorted(
            len(t.encode())
            for r in records
            for t in texts([r], role)
            if bool(CJK.search(t)) == zh or (role == "user" and not t.strip())
        )
        got_median = statistics.median(sizes)
        got_p90 = sizes[int(0.9 * len(sizes))]
        assert abs(got_median - median) <= 0.15 * median, (zh, got_median, median)
        assert abs(got_p90 - p90) <= 0.15 * p90, (zh, got_p90, p90)
    counts = [len(r["messages"]) for r in records]
    assert statistics.median(counts) == cs.MESSAGES_PER_CONVERSATION[cs.QUANTILES.index(50)]


def test_draw_follows_the_quantile_table():
    import random

    r = random.Random(0)
    table = (0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 200, 300, 1000)
    values = sorted(cs.draw(r, table) for _ in range(20_000))
    for q, expected in zip(cs.QUANTILES[1:-1], table[1:-1], strict=True):
        got = values[int(q / 100 * len(values))]
        assert abs(got - expected) <= max(3, 0.05 * expected), (q, got, expected)
    assert values[0] >= table[0] and values[-1] <= table[-1]


def test_generator_is_lazy_and_its_memory_flat_in_n(tmp_path):
    assert inspect.isgenerator(cs.iter_conversations(5))  # built one at a time, on demand

    def peak(n: int, out: Path) -> tuple[int, int]:
        cs.conversation(0, 0)  # the text pools, built once, are not the writer's growth
        tracemalloc.start()
        try:
            written = cs.write_generated(out, n, lines_per_file=10**6)
            return tracemalloc.get_traced_memory()[1], written.bytes
        finally:
            tracemalloc.stop()

    (small, _), (big, big_bytes) = peak(100, tmp_path / "small"), peak(1500, tmp_path / "big")
    # 15 times the conversations: the peak is one (the largest) conversation, not all of them
    # (it grows a little: a larger n draws longer conversations from the tail)
    assert big < 3 * small, (small, big)
    assert big < big_bytes / 20, (big, big_bytes)


def test_writers_never_write_over_a_corpus_folder(tmp_path):
    folder = tmp_path / "custom" / cs.GENERATED_NAME
    folder.mkdir(parents=True)
    (folder / "mine.jsonl").write_text("{}\n")
    with pytest.raises(CsrwhError, match="exists and is not empty"):
        cs.write_generated(tmp_path, 5)
    assert [p.name for p in folder.iterdir()] == ["mine.jsonl"]


# ----------------------------------------------------------------------------- converter


def _recllmsim_release(root: Path) -> Path:
    """A small folder shaped like RecLLMSim: human_exp_V2 files (history as a list, satisfaction
    and hallucination on answers, a questionnaire) and an LLM-agent file (history as a Python
    repr string, intent labels, an LLM rating object)."""
    human = {
        "chat_model": "gpt-4-turbo-preview",
        "history": [
            {"role": "user", "content": "我想学英语"},
            {
                "role": "assistant",
                "content": "好的。\n\n1. **词汇**",
                "hallucination": "否",
                "satisfaction": "4",
            },
            {"role": "user", "content": "再详细一些"},
            {
                "role": "assistant",
                "content": "第一个月……",
                "hallucination": "是",
                "satisfaction": "2",
                "reason": "不够细致",
            },
        ],
        "task_context": "学习一项技能",
        "task_type": "技能学习规划",
        "profile": {"gender": "Female", "age": 22},
        "questionnaire": [
            {"query": "遗忘?", "summary": "Memorization", "option": "否"},
            {"query": "详细?", "summary": "Detail", "option": "简略"},
            {"query": "参考?", "summary": "Availability", "option": "很有用"},
        ],
        "strategy": {"final": {"order": "Comprehensive"}},
    }
    agent = {
        "task": "travel planning",
        "preference": "likes quiet places",
        "history": repr(
            [
                {"role": "user", "content": "Plan a trip", "intent": ["ask", "plan"]},
                {
                    "role": "assistant",
                    "content": "Go to Kyoto",
                    "hallucination": {"hallucination": False},
                },
            ]
        ),
        "rating": {"Diversity": "2", "Detail Level": 1},
        "conflict": False,
    }
    files = {
        "User_1/技能学习规划/0.json": human,
        "User_1/技能学习规划/1.json": {**human, "chat_model": "deepseek-v3"},
        "User_2/旅行规划/0.json": human,
        "agent/travel planning/0.json": agent,
    }
    for rel, record in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    return root


def test_converter_line_for_line_keeps_every_message(tmp_path):
    source = _recllmsim_release(tmp_path / "release")
    written = cs.convert_recllmsim(source, tmp_path / "out")
    records = lines_of(written.folder)
    files = sorted(source.rglob("*.json"))
    assert [r["id"] for r in records] == [
        p.relative_to(source).with_suffix("").as_posix() for p in files
    ]
    assert written.lines == len(files) and written.messages == 4 + 4 + 4 + 2
    for record, path in zip(records, files, strict=True):
        assert conversation_problems(record) == []
        original = json.loads(path.read_text(encoding="utf-8"))
        history = cs._history(original)
        assert [(m["role"], m["text"]) for m in record["messages"]] == [
            (m["role"], m["content"]) for m in history
        ]
        for got, src in zip(record["messages"], history, strict=True):
            kept = {k: v for k, v in got.items() if k not in ("role", "text", "rating", "labels")}
            assert kept == {
                k: v
                for k, v in src.items()
                if k not in ("role", "content", "satisfaction", "intent")
            }
            if "satisfaction" in src:
                assert got["rating"] == int(src["satisfaction"])
            if "intent" in src:
                assert got["labels"] == src["intent"]
        # every other top-level key is kept under metadata
        assert set(record.get("metadata", {})) == set(original) - {
            "history",
            "chat_model",
            "task_type",
            "task",
            "rating",
        }
    human, agent = records[0], records[3]
    assert human["user_id"] == "User_1" and human["system_id"] == "gpt-4-turbo-preview"
    assert human["task"] == "技能学习规划"
    assert human["ratings"] == {"Memorization": 1, "Detail": 0, "Availability": 2}
    assert agent["ratings"] == {"Diversity": 2, "Detail Level": 1} and "user_id" not in agent
    corpus = json.loads((written.folder / "corpus.json").read_text(encoding="utf-8"))
    for record in records:
        for aspect in [*record.get("ratings", {}), "message_rating"]:
            assert aspect in corpus["rating_scales"], aspect


def test_converter_copies_suffix_ids(tmp_path):
    source = _recllmsim_release(tmp_path / "release")
    written = cs.convert_recllmsim(source, tmp_path / "out", copies=3)
    assert [p.name for p in written.files] == [
        "corpus.json",
        "copy-01.jsonl",
        "copy-02.jsonl",
        "copy-03.jsonl",
    ]
    records = lines_of(written.folder)
    assert len(records) == 3 * 4 == len({r["id"] for r in records})
    assert {r["id"].rsplit("#", 1)[1] for r in records} == {"c01", "c02", "c03"}
    one = lines_of(cs.convert_recllmsim(source, tmp_path / "one").folder)
    for record in records:
        base = record["id"].rsplit("#", 1)[0]
        assert {**record, "id": base} == next(r for r in one if r["id"] == base)


def test_converter_names_a_file_that_is_not_a_conversation(tmp_path):
    source = _recllmsim_release(tmp_path / "release")
    (source / "User_2" / "旅行规划" / "1.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(CsrwhError, match=r"1\.json: not a RecLLMSim conversation"):
        cs.convert_recllmsim(source, tmp_path / "out")
    with pytest.raises(CsrwhError, match="no RecLLMSim"):
        cs.convert_recllmsim(tmp_path / "empty", tmp_path / "out2")


# ----------------------------------------------------------------------------- the benchmark


def _benchmark():
    import importlib.util

    from csrwh.config import PROJECT_ROOT

    path = PROJECT_ROOT / "benchmarks" / "custom_scale.py"
    spec = importlib.util.spec_from_file_location("custom_scale_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_reads_sizes_and_a_failed_build():
    bench = _benchmark()
    assert [bench._size(s) for s in ("1833", "X10", "10k", "100K", "1m", "2500")] == [
        "1833",
        "x10",
        10_000,
        100_000,
        1_000_000,
        2500,
    ]
    with pytest.raises(Exception, match="unknown size"):
        bench._size("ten")
    output = [
        "phase dbt · build b1",
        "  ✗ model.csrwh.int_custom__conversations: error Runtime Error in model int_custom__conversations (x.sql)",
        "  Out of Memory Error: failed to allocate data of size 16.0 MiB (1021.3 MiB/1.0 GiB used)",
        "  ✗ second: fail",
        "error: build b1 failed (2 problem(s)); the published warehouse w was left untouched",
        "hint: inspect the rejected build with: csrwh sql ...",
    ]
    error, failures = bench.parse_output(output)
    assert error.startswith("build b1 failed (2 problem(s))")
    assert failures == [
        (
            "model.csrwh.int_custom__conversations: error Runtime Error in model "
            "int_custom__conversations (x.sql) | Out of Memory Error: failed to allocate data of "
            "size 16.0 MiB (1021.3 MiB/1.0 GiB used)"
        ),
        "second: fail",
    ]


def test_benchmark_reports_the_ratios():
    bench = _benchmark()

    def run(label, wall, rss, n=None, ok=True):
        return {
            "label": label,
            "ok": ok,
            "wall": wall,
            "peak_rss_mb": rss,
            "n": n,
            "startup": 1.0,
            "phase_seconds": {"ingest": wall / 4, "dbt": wall / 2},
            "phase_peak_rss_mb": {"ingest": rss / 2, "dbt": rss},
            "cpu_seconds": wall / 2,
            "phase_cpu_seconds": {"ingest": wall / 8, "dbt": wall / 4},
            "nodes": [
                {"model": "m", "seconds": wall / 4, "cpu_seconds": wall / 8, "peak_rss_mb": rss}
            ],
            "failed_phase": None if ok else "dbt",
            "error": None if ok else "build failed",
            "failures": [] if ok else ["model x: error | Out of Memory Error: y"],
            "output_tail": [],
        }

    lines = bench.report(
        [
            run("own 1833", 30.0, 900.0),
            run("first-class 1833", 20.0, 600.0),
            run("generated 10k", 10.0, 500.0, 10_000),
            run("generated 100k", 80.0, 700.0, 100_000, ok=False),
        ]
    )
    text = "\n".join(lines)
    assert (
        "own / first-class (1,833): wall 30.0 / 20.0 s = 1.50; CPU 15.0 / 10.0 s = 1.50; "
        "ingest CPU 3.8 / 2.5 s = 1.50; dbt CPU 7.5 / 5.0 s = 1.50; peak RSS 900 / 600 MB = 1.50"
        in text
    )
    assert (
        "100k / 10k (data x10): wall 80.0 / 10.0 s = 8.00; CPU 40.0 / 5.0 s = 8.00; "
        "ingest CPU 10.0 / 1.2 s = 8.00; dbt CPU 20.0 / 2.5 s = 8.00; peak RSS 700 / 500 MB = 1.40"
        in text
    )
    assert "generated 10k" in text and "m 2.5/1.2/500" in text  # the slowest node, as measured
    assert "not both passed" in text.split("100k / 10k")[1]
    assert "failed in dbt: build failed" in text and "Out of Memory Error: y" in text


def test_benchmark_measures_cpu_of_a_process():
    footprint = _benchmark()._benchmark_module("footprint")
    # a child burning CPU while it runs (as the build's dbt child) is counted before it ends
    grandchild = (
        "import time\nt = time.process_time()\nwhile time.process_time() - t < 1: pass\n"
        "time.sleep(30)"
    )
    script = (
        "import subprocess, sys, time\n"
        "t = time.process_time()\nwhile time.process_time() - t < 0.5: pass\n"
        f"subprocess.run([sys.executable, '-c', {grandchild!r}])"
    )
    burn = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.time() + 30
        used = 0.0
        while time.time() < deadline and used < 1.5:
            used = footprint.cpu_seconds(burn.pid) or 0.0
            time.sleep(0.1)
        assert 1.5 <= used < 6
    finally:
        for child in Path(f"/proc/{burn.pid}/task/{burn.pid}/children").read_text().split():
            os.kill(int(child), signal.SIGKILL)
        burn.kill()
        burn.wait()
    assert footprint.cpu_seconds(burn.pid) is None  # reaped: no such process
    cpu = [(10.0, 1.0), (11.0, 3.0), (12.0, 4.5)]
    assert footprint.cpu_between(cpu, 10.0, 12.0) == 3.5
    assert footprint.cpu_between(cpu, 9.0, 11.0) == 3.0


def test_benchmark_measures_what_each_table_stores(tmp_path):
    import duckdb

    bench = _benchmark()
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create schema staging")
    # 8 MiB of 8 KB strings, stored uncompressed: all but one block are overflow blocks
    con.execute("set force_compression = 'uncompressed'")
    con.execute(
        "create table staging.big as select (select string_agg(md5(i || '.' || j), '') "
        "from range(256) r(j)) as t from range(1000) r(i)"
    )
    con.execute("create table small as select 1 as x")
    con.execute("create view v as select * from staging.big")
    con.close()
    footprint = bench._benchmark_module("footprint")
    tables = footprint.storage_by_table(path)
    assert set(tables) == {"staging.big", "main.small"}  # a view stores nothing
    assert 7.5 <= tables["staging.big"] <= 9 and tables["main.small"] <= 0.25
    assert list(footprint.storage_by_schema(tables)) == ["staging", "main"]
    assert footprint.folder_bytes(tmp_path) >= path.stat().st_size > 0
    assert footprint.folder_bytes(tmp_path / "gone") == 0
