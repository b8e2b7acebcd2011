"""Large corpora of your own (the generic ``custom`` format, docs/ADDING_A_CORPUS.md) for the
own-corpus scaling benchmark (``benchmarks/custom_scale.py``, issue 23).

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
import ast
import bisect
import csv
import json
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from csrwh.errors import CsrwhError
from csrwh.sample._common import (
    EN_ADJECTIVES,
    EN_FILLER,
    EN_NOUNS,
    ZH_COMMON,
    ZH_CONNECT,
    ZH_TOPIC_WORDS,
    derive_seed,
)

ROOT = Path(__file__).resolve().parents[2]

# ----------------------------------------------------------------------------- calibration

#: the quantiles (percent) of the tables below
QUANTILES = (0, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 100)
#: RecLLMSim human_exp_V2: messages per conversation at each of QUANTILES (:func:`calibrate`)
MESSAGES_PER_CONVERSATION = (2, 4, 6, 6, 8, 8, 8, 9, 10, 10, 12, 14, 20, 96)
#: ... UTF-8 bytes of a user message's text
USER_MESSAGE_BYTES = (1, 21, 30, 39, 51, 60, 75, 87, 105, 127, 168, 216, 349, 708)
#: ... UTF-8 bytes of an assistant message's text
ASSISTANT_MESSAGE_BYTES = (
    9, 881, 1082, 1390, 1742, 2180, 2640, 3121, 3691, 4444, 5812, 7436, 11668, 27462,
)  # fmt: skip
#: the generator's bounds on messages per conversation (the real release has up to 96)
MIN_MESSAGES, MAX_MESSAGES = 2, 40
#: RecLLMSim human_exp_V2: how often people gave each satisfaction (1..5) to an answer
SATISFACTION_WEIGHTS = (139, 279, 843, 3102, 3697)


def _quantiles(values: list[int]) -> tuple[int, ...]:
    ordered = sorted(values)
    last = len(ordered) - 1
    return tuple(ordered[min(last, round(last * q / 100))] for q in QUANTILES)


def _recllmsim_files(folder: Path) -> list[Path]:
    return sorted(p for p in Path(folder).rglob("*.json") if not p.name.startswith("."))


def calibrate(folder: Path) -> dict[str, tuple[int, ...]]:
    """The quantile tables of a RecLLMSim release folder (e.g. ``recllmsim/human_exp_V2``):
    messages per conversation and UTF-8 bytes of user and assistant message texts."""
    per_conversation: list[int] = []
    sizes: dict[str, list[int]] = {"user": [], "assistant": []}
    for path in _recllmsim_files(folder):
        history = _history(json.loads(path.read_text(encoding="utf-8")))
        per_conversation.append(len(history))
        for message in history:
            if message.get("role") in sizes:
                sizes[message["role"]].append(len(str(message.get("content", "")).encode()))
    return {
        "messages_per_conversation": _quantiles(per_conversation),
        "user_message_bytes": _quantiles(sizes["user"]),
        "assistant_message_bytes": _quantiles(sizes["assistant"]),
    }


def draw(r: random.Random, table: tuple[int, ...]) -> int:
    """A value drawn from the distribution whose QUANTILES are ``table`` (inverse CDF, linear
    between two quantiles)."""
    u = r.random() * 100
    i = min(bisect.bisect_right(QUANTILES, u), len(QUANTILES) - 1)
    lo_q, hi_q = QUANTILES[i - 1], QUANTILES[i]
    lo, hi = table[i - 1], table[i]
    return round(lo + (hi - lo) * (u - lo_q) / (hi_q - lo_q))


# ----------------------------------------------------------------------------- text

_ZH_WORDS = ZH_COMMON + tuple(w for words in ZH_TOPIC_WORDS.values() for w in words)
_EN_WORDS = EN_ADJECTIVES + EN_NOUNS + EN_FILLER + (
    "the", "a", "and", "or", "to", "of", "in", "for", "with", "you", "it", "is", "can", "this",
)  # fmt: skip
_POOL_CHARS = 64 * 1024  # > the longest message (27,462 bytes) in characters of either language


def _pool(language: str) -> str:
    """64 Ki characters of running text (the same for every seed): sentences, numbered
    points in bold and paragraphs, as the real answers are laid out. Messages are slices."""
    r = random.Random(derive_seed(0, "custom_scale", "pool", language))
    parts: list[str] = []
    size = 0
    point = 0
    while size < _POOL_CHARS:
        if language == "zh":
            words = [r.choice(_ZH_WORDS) for _ in range(r.randint(3, 9))]
            sentence = "".join(
                w + (r.choice(ZH_CONNECT) if r.random() < 0.3 else "") for w in words
            )
            sentence += r.choice(("。", "，", "！", "？", "；"))
        else:
            sentence = " ".join(r.choice(_EN_WORDS) for _ in range(r.randint(5, 16)))
            sentence = sentence[0].upper() + sentence[1:] + r.choice((". ", ", ", "! ", "? "))
        if r.random() < 0.08:
            point += 1
            head = r.choice(_ZH_WORDS) if language == "zh" else r.choice(EN_NOUNS).title()
            sentence = f"\n\n{point}. **{head}**{'：' if language == 'zh' else ': '}{sentence}"
        parts.append(sentence)
        size += len(sentence)
    return "".join(parts)[:_POOL_CHARS]


@dataclass(frozen=True)
class _Pool:
    text: str  # the pool twice over, so that a slice may start anywhere
    bytes_per_char: float

    @classmethod
    def of(cls, language: str) -> _Pool:
        text = _pool(language)
        return cls(text + text, len(text.encode()) / len(text))

    def slice(self, r: random.Random, n_bytes: int) -> str:
        chars = max(1, min(_POOL_CHARS, round(n_bytes / self.bytes_per_char)))
        start = r.randrange(_POOL_CHARS)
        return self.text[start : start + chars].strip() or self.text[start]


_POOLS: dict[str, _Pool] = {}


def _text(r: random.Random, language: str, n_bytes: int) -> str:
    if language not in _POOLS:
        _POOLS[language] = _Pool.of(language)
    return _POOLS[language].slice(r, n_bytes)


# ----------------------------------------------------------------------------- generator

GENERATED_NAME = "generated"
SYSTEMS = ("gpt-4-turbo-preview", "gemini-2.0-pro-exp-02-05", "claude-3-7-sonnet", "deepseek-v3")
TASKS = ("travel planning", "recipe planning", "gift preparation", "skill learning")
LABELS = ("request", "refine", "ask_detail", "compare", "feedback", "thanks")
SYSTEM_PROMPTS = {
    "zh": "你是一个乐于助人的推荐助手，请根据用户的需求给出具体的建议。",
    "en": "You are a helpful recommendation assistant. Give concrete, practical suggestions.",
}
#: the shares of conversations that carry each optional part
SHARE = {
    "system_prompt": 0.1,
    "labels": 0.4,
    "message_ratings": 0.5,
    "ratings": 0.5,
    "subset": 0.25,
    "metadata": 0.3,
}

GENERATED_CORPUS_JSON = {
    "description": "Synthetic conversations written by csrwh.sample.custom_scale (not real "
    "data): sizes calibrated on RecLLMSim human_exp_V2, Chinese and English.",
    "licence": "CC0-1.0",
    "citation": "csrwh custom_scale generator (synthetic)",
    "domain": "task-based recommendation",
    "rater_kind": "user",
    "label_source": "human",
    "rating_scales": {
        "satisfaction": {"min": 1, "max": 5, "description": "How satisfied the user was overall"},
        "helpfulness": {"min": 0, "max": 2},
        "message_rating": {"min": 1, "max": 5, "description": "The user's rating of an answer"},
    },
}


def conversation(seed: int, index: int, zh_share: float = 0.5) -> dict:
    """Conversation ``index`` (0-based) of the generated corpus for ``seed``: the same whatever
    the number of conversations written (its own random stream)."""
    r = random.Random(derive_seed(seed, "custom_scale", index))
    language = "zh" if r.random() < zh_share else "en"
    n = min(MAX_MESSAGES, max(MIN_MESSAGES, draw(r, MESSAGES_PER_CONVERSATION)))
    record: dict = {"id": f"g{index:07d}"}
    if r.random() < SHARE["subset"]:
        record["subset"] = "pilot"
    record["task"] = r.choice(TASKS)
    record["user_id"] = f"u{r.randrange(max(1, index // 5 + 1)):06d}"
    record["system_id"] = r.choice(SYSTEMS)
    labelled = r.random() < SHARE["labels"]
    rated = r.random() < SHARE["message_ratings"]
    messages: list[dict] = []
    if r.random() < SHARE["system_prompt"]:
        messages.append({"role": "system", "text": SYSTEM_PROMPTS[language]})
        n = max(n, 3)  # still at least one user and one assistant message
    first = len(messages)  # user and assistant alternate from here, the user first
    while len(messages) < n:
        if (len(messages) - first) % 2 == 0:
            role = "user"
            message: dict = {"role": role, "text": _text(r, language, draw(r, USER_MESSAGE_BYTES))}
            if labelled:
                message["labels"] = r.sample(LABELS, r.choice((1, 1, 2)))
        else:
            role = "assistant"
            message = {"role": role, "text": _text(r, language, draw(r, ASSISTANT_MESSAGE_BYTES))}
            if rated:
                message["rating"] = r.choices((1, 2, 3, 4, 5), weights=SATISFACTION_WEIGHTS)[0]
        messages.append(message)
    record["messages"] = messages
    if r.random() < SHARE["ratings"]:
        record["ratings"] = {"satisfaction": r.randint(1, 5), "helpfulness": r.randint(0, 2)}
    if r.random() < SHARE["metadata"]:
        record["metadata"] = {
            "channel": r.choice(("web", "app")),
            "duration_s": r.randint(20, 3600),
        }
    return record


def iter_conversations(n: int, seed: int = 0, zh_share: float = 0.5) -> Iterator[dict]:
    """The first ``n`` conversations, one at a time (lazy: memory does not grow with ``n``)."""
    for index in range(n):
        yield conversation(seed, index, zh_share)


@dataclass
class Written:
    """What a writer wrote: the corpus folder, its files, lines, bytes and messages."""

    folder: Path
    files: list[Path]
    lines: int = 0
    bytes: int = 0
    messages: int = 0


def _new_corpus_folder(out: Path, name: str) -> Path:
    folder = Path(out) / "custom" / name
    if folder.exists() and any(folder.iterdir()):
        raise CsrwhError(
            f"{folder} exists and is not empty: not writing over it",
            hint="choose another --out (or --name), or remove the folder yourself",
        )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _write_corpus_json(folder: Path, content: dict, written: Written) -> None:
    path = folder / "corpus.json"
    path.write_text(json.dumps(content, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written.files.append(path)


def write_generated(
    out: Path,
    n: int,
    seed: int = 0,
    *,
    name: str = GENERATED_NAME,
    zh_share: float = 0.5,
    lines_per_file: int = 100_000,
) -> Written:
    """Write ``n`` generated conversations to ``out/custom/<name>/part-NNNNN.jsonl`` (at most
    ``lines_per_file`` lines each) and its ``corpus.json``, streaming."""
    if n < 1 or lines_per_file < 1:
        raise CsrwhError(
            f"need at least one conversation and one line per file (got {n}, {lines_per_file})"
        )
    folder = _new_corpus_folder(out, name)
    written = Written(folder, [])
    _write_corpus_json(folder, GENERATED_CORPUS_JSON, written)
    fh = None
    try:
        for index, record in enumerate(iter_conversations(n, seed, zh_share)):
            if index % lines_per_file == 0:
                if fh is not None:
                    fh.close()
                path = folder / f"part-{index // lines_per_file:05d}.jsonl"
                fh = path.open("wb")
                written.files.append(path)
            line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
            fh.write(line)
            written.lines += 1
            written.bytes += len(line)
            written.messages += len(record["messages"])
    finally:
        if fh is not None:
            fh.close()
    return written


# ----------------------------------------------------------------------------- converter

RECLLMSIM_NAME = "recllmsim_human"
DEFAULT_RECLLMSIM = (
    Path(os.environ.get("CSRWH_SHARED_CORPORA") or ROOT.parent / "shared" / "corpora")
    / "recllmsim"
    / "human_exp_V2"
)
#: the project's seed mapping questionnaire answers to numbers (the first-class route's)
QUESTIONNAIRE_SEED = ROOT / "seeds" / "recllmsim" / "recllmsim__questionnaire_options.csv"
#: top-level keys that become a line's own keys; every other key goes under ``metadata``
_CONVERTED_KEYS = ("history", "chat_model", "task_type", "task", "rating")


def _questionnaire_values() -> dict[tuple[str, str], float]:
    with QUESTIONNAIRE_SEED.open(encoding="utf-8", newline="") as fh:
        return {
            (row["item"], row["answer_option"]): float(row["value"]) for row in csv.DictReader(fh)
        }


def _scales() -> dict[str, dict]:
    """corpus.json rating scales: the per-message satisfaction and the questionnaire items (from
    the first-class route's seeds), and the LLM ratings of the LLM-agent release."""
    scales: dict[str, dict] = {
        "message_rating": {
            "min": 1,
            "max": 5,
            "description": "the user's satisfaction with the answer",
        }
    }
    seed = ROOT / "seeds" / "recllmsim" / "recllmsim__rating_scales.csv"
    with seed.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["level"] != "conversation":
                continue
            aspect = row["aspect"].removeprefix("questionnaire:")
            scales[aspect] = {
                "min": float(row["scale_min"]),
                "max": float(row["scale_max"]),
                "description": row["description"],
            }
    return scales


def _history(record: dict) -> list[dict]:
    history = record.get("history", [])
    if isinstance(history, str):  # some RecLLMSim files hold it as a Python repr or JSON text
        try:
            history = ast.literal_eval(history)
        except (ValueError, SyntaxError):
            history = json.loads(history)
    return history


def _number(value: object) -> float | int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return int(number) if number.is_integer() else number


def recllmsim_line(
    record: dict, rel_id: str, questionnaire: dict[tuple[str, str], float] | None = None
) -> dict:
    """One RecLLMSim file's object as an own-corpus line. ``id`` = ``rel_id`` (the path in the
    release without ``.json``); ``user_id`` = its ``User_<k>`` folder; ``system_id`` =
    ``chat_model``; ``task`` = ``task_type``; each history message keeps its role, its
    ``content`` as ``text``, a numeric ``satisfaction`` as ``rating``, a list (or string)
    ``intent`` as ``labels``, and every other key as it is (hallucination, reason, ...);
    ``ratings`` = the questionnaire answers scored as the project's seed scores them plus the
    LLM ``rating`` object; every other top-level key is kept under ``metadata``."""
    questionnaire = _questionnaire_values() if questionnaire is None else questionnaire
    line: dict = {"id": rel_id}
    first = rel_id.split("/", 1)[0]
    if first.startswith("User_"):
        line["user_id"] = first
    if isinstance(record.get("chat_model"), str):
        line["system_id"] = record["chat_model"]
    task = record.get("task_type", record.get("task"))
    if isinstance(task, str):
        line["task"] = task
    messages = []
    for message in _history(record):
        out = {"role": message.get("role"), "text": message.get("content")}
        for key, value in message.items():
            if key in ("role", "content"):
                continue
            if key == "satisfaction" and _number(value) is not None:
                out["rating"] = _number(value)
            elif key == "intent" and isinstance(value, str):
                out["labels"] = [value]
            elif (
                key == "intent"
                and isinstance(value, list)
                and all(isinstance(v, str) for v in value)
            ):
                out["labels"] = value
            else:
                out[key] = value
        messages.append(out)
    line["messages"] = messages
    ratings: dict = {}
    answers = record.get("questionnaire")
    if isinstance(answers, str):
        answers = ast.literal_eval(answers)
    for answer in answers if isinstance(answers, list) else []:
        key = (answer.get("summary"), answer.get("option"))
        if key in questionnaire:
            ratings[key[0]] = questionnaire[key]
    if isinstance(record.get("rating"), dict):
        for aspect, value in record["rating"].items():
            ratings[aspect] = _number(value)
    if ratings:
        line["ratings"] = ratings
    metadata = {k: v for k, v in record.items() if k not in _CONVERTED_KEYS}
    if metadata:
        line["metadata"] = metadata
    return line


RECLLMSIM_CORPUS_JSON = {
    "description": "RecLLMSim (github.com/wzf2000/RecLLMSim), converted line for line into the "
    "own-corpus format by csrwh.sample.custom_scale for the own-corpus benchmark.",
    "licence": "Apache-2.0",
    "citation": "RecLLMSim (wzf2000/RecLLMSim); no citation is given upstream",
    "url": "https://github.com/wzf2000/RecLLMSim",
    "language": "zh",
    "domain": "task-based recommendation",
    "rater_kind": "user",
    "label_source": "human",
}


def convert_recllmsim(
    source: Path = DEFAULT_RECLLMSIM,
    out: Path = Path("."),
    copies: int = 1,
    *,
    name: str = RECLLMSIM_NAME,
) -> Written:
    """Write every RecLLMSim file under ``source`` as one line of ``out/custom/<name>/``
    (``conversations.jsonl``; with ``copies`` > 1, ``copy-01.jsonl`` ... with ids suffixed
    ``#c01`` ...) and its ``corpus.json``, one file in memory at a time."""
    files = _recllmsim_files(source)
    if not files:
        raise CsrwhError(
            f"no RecLLMSim *.json files under {source}",
            hint="pass the release folder, e.g. ../shared/corpora/recllmsim/human_exp_V2",
        )
    if copies < 1:
        raise CsrwhError(f"copies must be >= 1, got {copies}")
    folder = _new_corpus_folder(out, name)
    written = Written(folder, [])
    _write_corpus_json(folder, {**RECLLMSIM_CORPUS_JSON, "rating_scales": _scales()}, written)
    questionnaire = _questionnaire_values()
    for copy in range(1, copies + 1):
        path = folder / ("conversations.jsonl" if copies == 1 else f"copy-{copy:02d}.jsonl")
        suffix = "" if copies == 1 else f"#c{copy:02d}"
        written.files.append(path)
        with path.open("wb") as fh:
            for src in files:
                rel_id = src.relative_to(source).with_suffix("").as_posix() + suffix
                try:
                    record = json.loads(src.read_text(encoding="utf-8"))
                    line = recllmsim_line(record, rel_id, questionnaire)
                except (ValueError, SyntaxError, AttributeError) as exc:
                    raise CsrwhError(
                        f"{src}: not a RecLLMSim conversation ({type(exc).__name__}: {exc})",
                        hint="convert a RecLLMSim release folder (one conversation object per .json file)",
                    ) from None
                data = (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")
                fh.write(data)
                written.lines += 1
                written.bytes += len(data)
                written.messages += len(line["messages"])
    return written


# ----------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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


if __name__ == "__main__":
    raise SystemExit(main())
