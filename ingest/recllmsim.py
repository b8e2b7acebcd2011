"""RecLLMSim (wzf2000/RecLLMSim): task-based recommendation conversations, one per JSON file.

Layout: ``**/*.json`` at any depth -- ``LLM_agent_user/<task>/N.json``,
``real_human_user/User_<k>/<task in Chinese>/N.json`` and the README's ``V2/<task>/N.json``.
Each file is one JSON object (one record, ``record_index`` 0); ``record_key`` is the path
relative to the corpus folder without ``.json`` (e.g. ``LLM_agent_user/travel planning/0``).
Keys differ between subsets and releases; the verbatim text keeps all of them.
"""

from ingest.spec import FileSpec, Format, RecordKey

CORPUS = "recllmsim"
FOLDER = "recllmsim"

ABSENT_HINT = (
    "get it with `csrwh fetch recllmsim` (clones github.com/wzf2000/RecLLMSim into "
    "<data dir>/recllmsim)"
)

FILES = (
    FileSpec("**/*.json", "recllmsim__conversations", Format.JSON_FILE, RecordKey.relative_path()),
)
