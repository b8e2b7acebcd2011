"""ConvSearch (chuzhumin98/ConvSearch-Dataset): Chinese open-domain conversational search behaviour.

Layout: ``Dialogs.json`` and ``SearchBehaviors.json`` at the corpus folder root, each a JSON
array of objects; ``record_key`` = ``id`` (an integer upstream, landed as its text).
``clicked_results`` inside search behaviours is a JSON-encoded *string*; it lands verbatim.
The data is distributed only as a zip on a file-hosting service, so it is added by hand.
"""

from ingest.spec import FileSpec, Format, RecordKey

CORPUS = "convsearch"
FOLDER = "convsearch"

ABSENT_HINT = (
    "download ConvSearch-v1.1-Main.zip by hand (Google Drive link on "
    "https://github.com/chuzhumin98/ConvSearch-Dataset) and run "
    "`csrwh fetch convsearch --from-zip <path to ConvSearch-v1.1-Main.zip>`"
)

FILES = (
    FileSpec("Dialogs.json", "convsearch__dialogs", Format.JSON_ARRAY, RecordKey.field("id")),
    FileSpec(
        "SearchBehaviors.json",
        "convsearch__search_behaviors",
        Format.JSON_ARRAY,
        RecordKey.field("id"),
    ),
)
