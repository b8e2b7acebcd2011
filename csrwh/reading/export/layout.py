"""What an export folder holds: its formats, file names, the records' column descriptions and
the result of one export."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ingest import registry

FORMATS = ("parquet", "jsonl", "hf")
MANIFEST = ".csrwh-export.json"
CARD = "README.md"
MARTS_DIR = "marts"
CONVERSATIONS = "conversations"
INPUT_FILES = "input_files.csv"
LICENCES = "LICENSES.md"
#: the ``jsonl`` export's one file holds every split: its config names the split so
ALL_SPLITS = "all_splits"
#: ``license_name`` for ``license: other`` (a licence stated by an upstream, see LICENSES.md)
OTHER_LICENCE_NAME = "upstream-licences"
#: Hugging Face task categories: dialogue records (text generation) and relevance judgments
TASK_CATEGORIES = ("text-generation", "text-retrieval")

#: Column descriptions of the conversation records (csrwh.reading.api.CONVERSATIONS_SQL).
CONVERSATION_COLUMNS: dict[str, str] = {
    "conversation_id": "Global conversation id `<corpus>:<source id>`.",
    "source_conversation_id": "The conversation's id in its corpus' own files.",
    "corpus": "Corpus: "
    + " or ".join(", ".join(registry.names()).rsplit(", ", 1))  # the corpus registry's ids
    + " (your own corpora, docs/ADDING_A_CORPUS.md).",
    "subset": "Subset / release folder of the corpus (see Corpora below).",
    "domain_or_task": "Domain or task of the conversation as the corpus names it.",
    "task_type": "Task type where the corpus gives one.",
    "language": "Language detected from the users' text (`en`, `zh`), or the corpus' declared one.",
    "user_id": "Global id of the user (NULL when the corpus has none).",
    "system_id": "The system / assistant / chat model that answered (NULL when not known).",
    "user_sentiment": "`satisfied` / `frustrated` where the corpus records it.",
    "user_satisfaction": "User satisfaction in [0, 1] where the corpus records it.",
    "split": "Deterministic split from the id alone: md5(conversation_id)[:8] as an integer "
    "modulo 100; 0-79 train, 80-89 validation, 90-99 test (stable across builds).",
    "messages": "The utterances in turn order as `{role, content}`; role `user` or `assistant`.",
    "turn_annotations": "One entry per message (same order): turn_index, turn_id, the turn's "
    "intents (annotator, label_scheme, label, family, is_primary) and turn-level ratings.",
    "ratings": "Conversation-level ratings: aspect, rater_id, rater_kind, value, raw_value, comment.",
}

SIZE_CATEGORIES = (
    (1_000, "n<1K"),
    (10_000, "1K<n<10K"),
    (100_000, "10K<n<100K"),
    (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"),
    (100_000_000, "10M<n<100M"),
)


@dataclass
class ExportResult:
    out: Path
    format: str
    corpora: list[str]
    n_conversations: int
    conversation_files: list[Path]
    marts: list[Path]
    trec_files: list[Path]
    card: Path
    row_counts: dict[str, int] = field(default_factory=dict)  # relative path -> rows
