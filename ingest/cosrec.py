"""CoSRec (CAMEO-22/CoSRec): conversational search & recommendation, LLM-generated conversations.

Layout: ``dataset/{raw,crowd,curated}/*.jsonl`` plus ``dataset/curated/qrels.qrels``.
Every ``.jsonl`` line is a one-key object ``{"<conversation id>": value}``; ``record_key``
is that single key, and a valid-JSON line that is not a one-key object is rejected
("wrong top-level shape"). The qrels file is TREC ``topic iteration doc_id grade``;
its payload is ``{"topic_id", "iteration", "doc_id", "grade"}`` (strings) and
``record_key`` is the topic id. ``dataset/raw/conversations.jsonl`` (Git LFS upstream)
lands in ``cosrec__conversations`` whenever it is present.
"""

from ingest.spec import FileSpec, Format, RecordKey

CORPUS = "cosrec"
FOLDER = "cosrec"

ABSENT_HINT = (
    "get it with `csrwh fetch cosrec` (clones github.com/CAMEO-22/CoSRec into <data dir>/cosrec; "
    "dataset/raw/conversations.jsonl is stored with Git LFS upstream)"
)

_ONE_KEY = RecordKey.single_key()

FILES = (
    FileSpec("dataset/*/conversations.jsonl", "cosrec__conversations", Format.JSONL, _ONE_KEY),
    FileSpec("dataset/*/quality.jsonl", "cosrec__quality", Format.JSONL, _ONE_KEY),
    FileSpec(
        "dataset/*/intent_annotations.jsonl", "cosrec__intent_annotations", Format.JSONL, _ONE_KEY
    ),
    FileSpec("dataset/*/intents.jsonl", "cosrec__intents", Format.JSONL, _ONE_KEY),
    FileSpec("dataset/*/keywords.jsonl", "cosrec__keywords", Format.JSONL, _ONE_KEY),
    FileSpec("dataset/*/profiles.jsonl", "cosrec__profiles", Format.JSONL, _ONE_KEY),
    FileSpec("dataset/*/qrels.qrels", "cosrec__qrels", Format.QRELS, RecordKey.field("topic_id")),
)
