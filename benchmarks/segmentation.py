"""Benchmark Chinese word segmenters on the real RecLLMSim utterances (turns.n_words_segmented).

Usage::

    .venv/bin/python benchmarks/segmentation.py --warehouse warehouse/csr.duckdb

Reads every RecLLMSim `turns.text` that `csrwh.measures.text.is_chinese` calls Chinese and,
for each segmenter that is importable (rjieba -- the one the warehouse uses --, Python
jieba, spacy_pkuseg), prints: installed size of its distribution, start-up (import + loading
its dictionary or model), cut time and throughput over all texts, tokens and words (tokens
with a letter or digit), determinism (sha256 of the token lists of two runs) and agreement
with Python jieba's same mode. Network access is blocked in-process for the whole run, so a
segmenter that needs to download something at start-up fails here as it would offline.
Install the candidates you want to compare (pip install jieba spacy-pkuseg) beforehand; only
rjieba is a project dependency.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import socket
import time
from pathlib import Path

import duckdb

from csrwh.measures.text import _is_word, is_chinese


def _block_network() -> None:
    def refuse(*args, **kwargs):
        raise OSError("network disabled by benchmarks/segmentation.py")

    socket.socket.connect = refuse  # type: ignore[method-assign]
    socket.create_connection = refuse  # type: ignore[assignment]
    socket.getaddrinfo = refuse  # type: ignore[assignment]


def _installed_mb(distribution: str) -> float:
    files = importlib.metadata.files(distribution) or []
    total = 0
    for file in files:
        path = Path(str(file.locate()))
        if path.is_file():
            total += path.stat().st_size
    return total / 1e6


def _digest(tokens: list[list[str]]) -> str:
    return hashlib.sha256(json.dumps(tokens, ensure_ascii=False).encode()).hexdigest()[:16]


def _candidates():
    """(name, distribution, start() -> cut(text) -> list[str])."""

    def rjieba_start(hmm: bool):
        def start():
            import rjieba

            jieba = rjieba.Jieba()
            return lambda text: jieba.cut(text, hmm)

        return start

    def jieba_start(hmm: bool):
        def start():
            import logging

            import jieba

            jieba.setLogLevel(logging.WARNING)
            tokenizer = jieba.Tokenizer()
            # build the prefix dict from the shipped dict.txt (no cache file read or written)
            tokenizer.FREQ, tokenizer.total = tokenizer.gen_pfdict(tokenizer.get_dict_file())
            tokenizer.initialized = True
            return lambda text: list(tokenizer.cut(text, HMM=hmm))

        return start

    def pkuseg_start():
        import spacy_pkuseg

        segmenter = spacy_pkuseg.pkuseg()  # default model: downloaded at first use
        return segmenter.cut

    return [
        ("jieba (HMM off)", "jieba", jieba_start(False), None),
        ("jieba (HMM on)", "jieba", jieba_start(True), None),
        ("rjieba (HMM off) [used]", "rjieba", rjieba_start(False), "jieba (HMM off)"),
        ("rjieba (HMM on)", "rjieba", rjieba_start(True), "jieba (HMM on)"),
        ("spacy_pkuseg", "spacy-pkuseg", pkuseg_start, None),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", type=Path, default=Path("warehouse/csr.duckdb"))
    parser.add_argument("--min-han-share", type=float, default=0.3)
    parser.add_argument("--skip", nargs="*", default=[], help="segmenter names to skip")
    args = parser.parse_args()
    with duckdb.connect(str(args.warehouse), read_only=True) as con:
        texts = [
            text
            for (text,) in con.execute(
                "select text from turns where corpus = 'recllmsim' order by turn_id"
            ).fetchall()
        ]
    chinese = [t for t in texts if is_chinese(t, args.min_han_share)]
    n_chars = sum(map(len, chinese))
    print(f"RecLLMSim utterances: {len(texts):,}; Chinese: {len(chinese):,} ({n_chars:,} chars)")
    _block_network()
    results: dict[str, list[list[str]]] = {}
    print(
        "| segmenter | installed MB | start s | cut s | k chars/s | tokens | words "
        "| deterministic | identical to |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, distribution, start, compare in _candidates():
        if any(skip in name for skip in args.skip):
            continue
        try:
            size = f"{_installed_mb(distribution):.1f}"
        except importlib.metadata.PackageNotFoundError:
            print(f"| {name} | not installed | | | | | | | |")
            continue
        started = time.perf_counter()
        try:
            cut = start()
            cut("预热")
        except Exception as error:  # noqa: BLE001 - report any start-up failure
            print(f"| {name} | {size} | fails offline: {type(error).__name__} | | | | | | |")
            continue
        startup = time.perf_counter() - started
        runs, seconds = [], []
        for _ in range(2):
            started = time.perf_counter()
            runs.append([list(cut(text)) for text in chinese])
            seconds.append(time.perf_counter() - started)
        tokens = runs[0]
        results[name] = tokens
        best = min(seconds)
        words = sum(1 for text_tokens in tokens for token in text_tokens if _is_word(token))
        deterministic = _digest(runs[0]) == _digest(runs[1])
        same = ""
        if compare and compare in results:
            equal = sum(a == b for a, b in zip(tokens, results[compare], strict=True))
            same = f"{compare}: {equal:,}/{len(tokens):,} texts"
        print(
            f"| {name} | {size} | {startup:.2f} | {best:.1f} | {n_chars / best / 1e3:,.0f} | "
            f"{sum(map(len, tokens)):,} | {words:,} | {deterministic} | {same} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
