"""`csrwh export`: the warehouse as files other tools read, with a dataset card.

One folder: the conversation records by split (Parquet, JSONL or a ``datasets.DatasetDict``),
every mart, optionally TREC qrels and topics, the input files and licences, a Hugging Face
dataset card, and a manifest so that exporting again replaces exactly the previous export. The
warehouse is only read.
Details: docs/internals.md#csrwh-reading-export
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
