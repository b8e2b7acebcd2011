"""The real RecLLMSim files as own-corpus JSONL, one line per file, ``copies`` times."""

from __future__ import annotations

import ast
import csv
import json
import os
from pathlib import Path

from csrwh.config import PROJECT_ROOT as ROOT
from csrwh.errors import CsrwhError
from csrwh.sample.custom_scale.calibration import _history, _recllmsim_files
from csrwh.sample.custom_scale.generator import Written, _new_corpus_folder, _write_corpus_json

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
