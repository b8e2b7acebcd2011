"""Large corpora of your own (the generic ``custom`` format, docs/ADDING_A_CORPUS.md) for the
own-corpus scaling benchmark (``benchmarks/custom_scale.py``).

Two writers, both streaming (one conversation in memory at a time, whatever their number) and
both writing ``<out>/custom/<name>/`` (a data folder ``csrwh build --data-dir <out>`` reads):

- :func:`write_generated` -- ``n`` synthetic conversations, deterministic by seed (conversation
  ``i`` is the same whatever ``n``), in files of at most ``lines_per_file`` lines
  (``part-00000.jsonl``, ...) plus a ``corpus.json`` declaring the rating scales. Chinese and
  English conversations (``zh_share`` of them Chinese, default half), 2-40 messages, user and
  assistant alternating (a system prompt first in some), labels on the user messages of some,
  a per-message rating on the assistant messages of some, conversation ratings on some,
  ``user_id``, ``system_id``, ``task``, and ``subset``/``metadata`` on some. Message counts and
  message sizes follow the real RecLLMSim ``human_exp_V2`` release (1,833 conversations of
  people with four LLMs): :data:`MESSAGES_PER_CONVERSATION`, :data:`USER_MESSAGE_BYTES` and
  :data:`ASSISTANT_MESSAGE_BYTES` are its quantiles (:func:`calibrate` recomputes them), drawn
  by inverse CDF (linear between the quantiles). Sizes are UTF-8 bytes, so an English message
  has about the bytes of a Chinese one (~2.1 times its characters: real Chinese answers are
  ~54% CJK characters, 3 bytes each, the rest ASCII). A message of more than 40 is cut to 40.
- :func:`convert_recllmsim` -- the real RecLLMSim files (any of its releases; the benchmark uses
  ``human_exp_V2``) as own-corpus JSONL, one line per file, in file-name order, ``copies``
  times (ids suffixed ``#c01``, ``#c02``, ... when ``copies`` > 1; one file per copy).
  Every message is kept (:func:`recllmsim_line`).

Lines are ``json.dumps(..., ensure_ascii=False)`` (UTF-8, as a lab's logs would be). Neither
writer deletes or overwrites anything: a corpus folder that exists already is an error.

From the command line (``--help`` for the options)::

    .venv/bin/python -m csrwh.sample.custom_scale generate --conversations 100000 --out /tmp/own
    .venv/bin/python -m csrwh.sample.custom_scale convert --copies 10 --out /tmp/own_x10
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
