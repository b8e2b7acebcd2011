"""Large corpora of your own (the generic ``custom`` format) for ``benchmarks/custom_scale.py``.

:func:`write_generated` streams ``n`` deterministic synthetic conversations sized like RecLLMSim's
``human_exp_V2``; :func:`convert_recllmsim` writes the real RecLLMSim files as own-corpus JSONL,
``copies`` times. Neither overwrites anything. Command line: ``python -m
csrwh.sample.custom_scale generate|convert --help``.
Details: docs/internals.md#csrwh-sample-custom_scale
"""

from __future__ import annotations

import argparse
from pathlib import Path

from csrwh.errors import CsrwhError
from csrwh.sample.custom_scale.calibration import (
    ASSISTANT_MESSAGE_BYTES,
    MAX_MESSAGES,
    MESSAGES_PER_CONVERSATION,
    MIN_MESSAGES,
    QUANTILES,
    SATISFACTION_WEIGHTS,
    USER_MESSAGE_BYTES,
    _history,
    calibrate,
    draw,
)
from csrwh.sample.custom_scale.generator import (
    GENERATED_CORPUS_JSON,
    GENERATED_NAME,
    Written,
    conversation,
    iter_conversations,
    write_generated,
)
from csrwh.sample.custom_scale.recllmsim import (
    DEFAULT_RECLLMSIM,
    RECLLMSIM_CORPUS_JSON,
    RECLLMSIM_NAME,
    convert_recllmsim,
    recllmsim_line,
)

__all__ = [
    "ASSISTANT_MESSAGE_BYTES",
    "DEFAULT_RECLLMSIM",
    "GENERATED_CORPUS_JSON",
    "GENERATED_NAME",
    "MAX_MESSAGES",
    "MESSAGES_PER_CONVERSATION",
    "MIN_MESSAGES",
    "QUANTILES",
    "RECLLMSIM_CORPUS_JSON",
    "RECLLMSIM_NAME",
    "SATISFACTION_WEIGHTS",
    "USER_MESSAGE_BYTES",
    "Written",
    "_history",
    "calibrate",
    "conversation",
    "convert_recllmsim",
    "draw",
    "iter_conversations",
    "main",
    "recllmsim_line",
    "write_generated",
]


# ----------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m csrwh.sample.custom_scale", description=__doc__.splitlines()[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="write N generated conversations")
    gen.add_argument("--conversations", "-n", type=int, required=True)
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument("--zh-share", type=float, default=0.5, help="share of Chinese conversations")
    gen.add_argument("--lines-per-file", type=int, default=100_000)
    gen.add_argument("--name", default=GENERATED_NAME, help="corpus folder name under custom/")
    conv = sub.add_parser("convert", help="convert a RecLLMSim release to own-corpus JSONL")
    conv.add_argument("--source", type=Path, default=DEFAULT_RECLLMSIM)
    conv.add_argument("--copies", type=int, default=1)
    conv.add_argument("--name", default=RECLLMSIM_NAME, help="corpus folder name under custom/")
    for p in (gen, conv):
        p.add_argument("--out", type=Path, required=True, help="data folder (gets custom/<name>/)")
    args = parser.parse_args(argv)
    try:
        if args.command == "generate":
            written = write_generated(
                args.out,
                args.conversations,
                args.seed,
                name=args.name,
                zh_share=args.zh_share,
                lines_per_file=args.lines_per_file,
            )
        else:
            written = convert_recllmsim(args.source, args.out, args.copies, name=args.name)
    except CsrwhError as exc:
        print(f"error: {exc}")
        return 1
    print(
        f"wrote {written.folder}: {written.lines:,} conversations, {written.messages:,} messages, "
        f"{written.bytes / 1e6:,.1f} MB in {len(written.files) - 1} JSONL file(s) and corpus.json"
    )
    return 0
