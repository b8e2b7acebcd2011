"""Render what dbt needs from the corpus registry (ingest/corpora.toml), or check it.

dbt cannot read TOML, so this renders two files from the registry and the project's files:

* ``seeds/corpora.csv`` -- one row per (corpus, subset) (``ingest.registry.render_seed``);
* ``macros/generated/corpus_registry.sql`` -- the registered corpus ids in registry order and,
  found by scanning the project at render time, which corpus has which
  ``int_<id>__<mart>_conformed`` model (``models/intermediate/<id>/``) and which per-corpus
  lookup seed (``seeds/<id>/<id>__<seed>.csv``) or own lookup model
  (``models/intermediate/<id>/int_<id>__<lookup>``). The core marts union the conformed models
  and the shared lookups (``rating_scales``, ...) union the per-corpus seeds over these
  lists, so a new corpus adds its own files and its registry entry, nothing else.

.venv/bin/python scripts/corpora_seed.py           # rewrite both files
.venv/bin/python scripts/corpora_seed.py --check   # exit 1 and list the lines that differ
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from csrwh.errors import CsrwhError
from ingest import registry

#: the file dbt reads the registry from (relative to the project root)
MACRO_FILE = Path("macros") / "generated" / "corpus_registry.sql"
#: core marts that union one ``int_<id>__<mart>_conformed`` model per corpus that has one
MARTS = (
    "conversations",
    "turns",
    "ratings",
    "users",
    "intents",
    "items",
    "behaviour_labels",
    "relevance_judgments",
)
#: shared lookups (models of the same name in schema seeds) that union the per-corpus seeds
#: ``seeds/<id>/<id>__<seed>.csv``
SHARED_SEEDS = (
    "rating_scales",
    "intent_taxonomy",
    "known_values",
    "questionnaire_options",
    "judgment_kinds",
    "label_schemes",
    "item_kinds",
)
#: lookups a corpus may also give as its own model ``int_<id>__<lookup>`` (rows its seed cannot
#: hold, e.g. the scales and judgment kinds each custom corpus declares in its corpus.json, or
#: its label schemes 'custom:<name>'); read beside (``label_schemes``: unioned into) the shared
#: lookup of the same name
OWN_LOOKUPS = ("rating_scales", "judgment_kinds", "label_schemes")

_CONFORMED = re.compile(r"int_([a-z][a-z0-9_]*?)__([a-z][a-z0-9_]*)_conformed")
_SEED = re.compile(r"([a-z][a-z0-9_]*?)__([a-z][a-z0-9_]*)")


def _jinja_list(items: list[str]) -> str:
    return "[" + ", ".join(f"'{i}'" for i in items) + "]"


def conformed_models(
    root: Path | None = None, ids: list[str] | None = None
) -> dict[str, list[str]]:
    """``{mart: [corpus id, ...]}`` in registry order: the corpora with an
    ``int_<id>__<mart>_conformed`` model (.sql or .py) under ``models/``. A conformed model of
    an unregistered corpus, of an unknown mart, or outside ``models/intermediate/<id>/`` is a
    one-line error naming the file."""
    root = ROOT if root is None else root
    ids = registry.names() if ids is None else ids
    found: dict[str, set[str]] = {mart: set() for mart in MARTS}
    for path in sorted((root / "models").rglob("int_*_conformed.*")):
        if path.suffix not in (".sql", ".py"):
            continue
        rel = path.relative_to(root)
        match = _CONFORMED.fullmatch(path.stem)
        corpus, mart = match.groups() if match else (None, None)
        if corpus not in ids:
            raise CsrwhError(f"{rel}: conformed model of a corpus not in ingest/corpora.toml")
        if mart not in MARTS:
            raise CsrwhError(f"{rel}: '{mart}' is not a core mart ({', '.join(MARTS)})")
        if rel.parent != Path("models", "intermediate", corpus):
            raise CsrwhError(f"{rel}: a conformed model belongs in models/intermediate/{corpus}/")
        found[mart].add(corpus)
    return {mart: [i for i in ids if i in found[mart]] for mart in MARTS}


def corpus_seeds(root: Path | None = None, ids: list[str] | None = None) -> dict[str, list[str]]:
    """``{shared seed: [corpus id, ...]}`` in registry order: the corpora with a
    ``seeds/<id>/<id>__<seed>.csv``. A per-corpus lookup seed of an unregistered corpus or
    in another corpus' folder is a one-line error naming the file."""
    root = ROOT if root is None else root
    ids = registry.names() if ids is None else ids
    found: dict[str, set[str]] = {seed: set() for seed in SHARED_SEEDS}
    for path in sorted((root / "seeds").rglob("*.csv")):
        rel = path.relative_to(root)
        match = _SEED.fullmatch(path.stem)
        if match is None or match.group(2) not in SHARED_SEEDS:
            continue  # corpora.csv, or a corpus' own seed the shared lookups do not read
        corpus, seed = match.groups()
        if corpus not in ids:
            raise CsrwhError(f"{rel}: lookup seed of a corpus not in ingest/corpora.toml")
        if rel.parent != Path("seeds", corpus):
            raise CsrwhError(f"{rel}: a corpus' lookup seed belongs in seeds/{corpus}/")
        found[seed].add(corpus)
    return {seed: [i for i in ids if i in found[seed]] for seed in SHARED_SEEDS}


def corpus_lookup_models(
    root: Path | None = None, ids: list[str] | None = None
) -> dict[str, list[str]]:
    """``{lookup: [corpus id, ...]}`` in registry order: the corpora with an own lookup model
    ``models/intermediate/<id>/int_<id>__<lookup>`` (.sql or .py) of :data:`OWN_LOOKUPS`."""
    root = ROOT if root is None else root
    ids = registry.names() if ids is None else ids
    return {
        lookup: [
            i
            for i in ids
            if any(
                (root / "models" / "intermediate" / i / f"int_{i}__{lookup}{suffix}").is_file()
                for suffix in (".sql", ".py")
            )
        ]
        for lookup in OWN_LOOKUPS
    }


def render_macros(root: Path | None = None) -> str:
    """macros/generated/corpus_registry.sql as the registry and the project's files render it."""
    root = ROOT if root is None else root
    ids = registry.names()
    marts = conformed_models(root, ids)
    seeds = corpus_seeds(root, ids)
    own = corpus_lookup_models(root, ids)
    lines = [
        "{#-",
        "    generated from ingest/corpora.toml by scripts/corpora_seed.py; do not edit",
        "    (rewrite: .venv/bin/python scripts/corpora_seed.py; tests/unit/test_corpus_registry.py",
        "    fails while this file differs from the rendering).",
        "-#}",
        "",
        "{#- The registered corpus ids (the `corpus` column), in registry order. -#}",
        "{% macro registered_corpora() -%}",
        f"    {{{{ return({_jinja_list(ids)}) }}}}",
        "{%- endmacro %}",
        "",
        "{#- Per core mart, the corpora with an int_<id>__<mart>_conformed model, in order. -#}",
        "{% macro conformed_corpora_by_mart() -%}",
        "    {{ return({",
        *(f"        '{mart}': {_jinja_list(marts[mart])}," for mart in MARTS),
        "    }) }}",
        "{%- endmacro %}",
        "",
        "{#- Per shared lookup, the corpora with a seeds/<id>/<id>__<seed>.csv, in order. -#}",
        "{% macro corpus_seeds_by_lookup() -%}",
        "    {{ return({",
        *(f"        '{seed}': {_jinja_list(seeds[seed])}," for seed in SHARED_SEEDS),
        "    }) }}",
        "{%- endmacro %}",
        "",
        "{#- Per lookup, the corpora with their own models/intermediate/<id>/int_<id>__<lookup>. -#}",
        "{% macro corpus_models_by_lookup() -%}",
        "    {{ return({",
        *(f"        '{lookup}': {_jinja_list(own[lookup])}," for lookup in OWN_LOOKUPS),
        "    }) }}",
        "{%- endmacro %}",
    ]
    return "\n".join(lines) + "\n"


def macro_differences(root: Path | None = None) -> list[str]:
    """Lines of the committed macro file that differ from :func:`render_macros` (empty: in sync)."""
    root = ROOT if root is None else root
    return registry.rendering_differences(root / MACRO_FILE, render_macros(root))


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step: written beside it, then renamed over it (a
    reader sees the old file or the new one, never half of one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    """``scripts/corpora_seed.py [--check]``: rewrite (or check) the seed and the macro file.
    Both are rendered (and so validated) in memory before either is written: a misplaced model
    or seed is a one-line error that leaves both files as they were."""
    args = list(sys.argv[1:] if argv is None else argv)
    if set(args) - {"--check"}:
        print("usage: scripts/corpora_seed.py [--check]", file=sys.stderr)
        return 2
    try:
        rendered = {registry.SEED_FILE: registry.render_seed(), ROOT / MACRO_FILE: render_macros()}
    except CsrwhError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    if "--check" in args:
        diff = [
            line
            for path, text in rendered.items()
            for line in registry.rendering_differences(path, text)
        ]
        for line in diff:
            print(line, file=sys.stderr)
        if diff:
            print("run `python scripts/corpora_seed.py` to rewrite it", file=sys.stderr)
        return 1 if diff else 0
    for path, text in rendered.items():
        write_atomically(path, text)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
