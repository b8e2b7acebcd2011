"""`csrwh export`: the warehouse as files other tools read, with a dataset card.

One export folder holds

* the conversation records of :func:`csrwh.load` (one row per conversation: ids, metadata,
  ``messages`` as ``[{role, content}]``, per-turn annotations, ratings, the deterministic
  ``split``) as ``conversations/<split>.parquet`` (one file per split the records carry),
  ``conversations.jsonl`` (one JSON object a line, every split; the records that first give
  each field a value come first, so that JSON readers inferring types from the first rows type
  every field) or, for ``hf``, ``conversations/``: a ``datasets.DatasetDict`` (``train`` /
  ``validation`` / ``test`` by the ``split`` column) written with ``save_to_disk``;
* every mart as ``marts/<mart>.parquet`` (``hf``: ``marts/<mart>.arrow``, since ``datasets``
  reads every config of a folder with one builder) (with ``--corpus``: the corpora's rows, see
  :func:`csrwh.reading.query.export_marts`);
* with ``--trec``: each exported corpus' qrels and topics as TREC files, a folder per collection (:func:`csrwh.reading.trec.export_trec`),
  in ``<out>/trec`` or ``--trec-dir`` (a folder under the same rules as ``--out``);
* ``input_files.csv``: corpus, path, sha256 and records of every input file of the exported
  corpora; ``LICENSES.md``: each corpus' licence and upstream;
* ``README.md``, a dataset card in the Hugging Face conventions: YAML front matter (licences,
  with ``license_name`` / ``license_link`` for ``other``; languages; task categories; pretty
  name; size category; one config per file: the records by split, each mart with rows) and a
  body with every file and its row count, the empty marts, a loading snippet, each corpus'
  licence, upstream and exported subsets, the citations as BibTeX (the corpus registry), the
  build id, and the description of every column;
* ``.csrwh-export.json``, the list of files written, so that exporting into the same folder
  again first removes exactly the previous export's files (a folder holding anything else, the
  warehouse's folder or ``/`` is refused before anything is written, never cleared).

The warehouse is only read (a locked read-only connection, as ``csrwh sql``).
"""

from __future__ import annotations

from csrwh.reading.export.card import dataset_card, hf_license, licences_text, size_category
from csrwh.reading.export.layout import CARD, CONVERSATION_COLUMNS, FORMATS, MANIFEST, ExportResult
from csrwh.reading.export.run import export

__all__ = [
    "CARD",
    "CONVERSATION_COLUMNS",
    "FORMATS",
    "MANIFEST",
    "ExportResult",
    "dataset_card",
    "export",
    "hf_license",
    "licences_text",
    "size_category",
]
