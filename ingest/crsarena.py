"""CRSArena-Dial (iai-group/crsarena-dial): CRS Arena dialogues, satisfaction and pairwise votes.

Layout: ``data/crs_arena_dial_{open,closed}.json`` -- JSON arrays, one dialogue object per
element, ``record_key`` = ``conversation ID`` -- and ``data/votes_{open,closed}.csv`` --
RFC-4180 CSV (header ``session_id,user_id,crs1,crs2,vote,feedback``; feedback may hold
quotes and newlines), payload = ``{header: value}`` as strings, ``source_text`` = the
verbatim record, ``record_key`` = ``session_id``. Other files (e.g. ``data/merged/``, the
output of the upstream merge tool) are not landed.
"""

from ingest.spec import FileSpec, Format, RecordKey

CORPUS = "crsarena"
FOLDER = "crsarena-dial"

ABSENT_HINT = (
    "get it with `csrwh fetch crsarena` (clones github.com/iai-group/crsarena-dial into "
    "<data dir>/crsarena-dial)"
)

FILES = (
    FileSpec(
        "data/crs_arena_dial_*.json",
        "crsarena__dialogues",
        Format.JSON_ARRAY,
        RecordKey.field("conversation ID"),
    ),
    FileSpec("data/votes_*.csv", "crsarena__votes", Format.CSV, RecordKey.field("session_id")),
)
