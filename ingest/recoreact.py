"""RecoReact (microsoft/RecoReact): multi-turn feedback for recommendations in three domains.

Layout: ``{news,travel,food}-{products,users,impressions}.jsonl`` at the corpus folder root
(any ``<domain>-<entity>.jsonl`` lands, so new domains need no code). One JSON object per
line; ``record_key`` = ``pid`` (products), ``uid`` (users), ``iid`` (impressions); the domain
is recoverable from ``source_path``.
"""

from ingest.spec import FileSpec, Format, RecordKey

CORPUS = "recoreact"
FOLDER = "recoreact"

ABSENT_HINT = (
    "get it with `csrwh fetch recoreact` (downloads the nine JSONL files of microsoft/RecoReact "
    "from the Hugging Face hub, ModelScope as fallback, into <data dir>/recoreact)"
)

FILES = (
    FileSpec("*-products.jsonl", "recoreact__products", Format.JSONL, RecordKey.field("pid")),
    FileSpec("*-users.jsonl", "recoreact__users", Format.JSONL, RecordKey.field("uid")),
    FileSpec("*-impressions.jsonl", "recoreact__impressions", Format.JSONL, RecordKey.field("iid")),
)
