"""csrwh.measures.text: whitespace and segmented word counts, and the offline, hash-verified
cl100k_base token counts (turns.n_words_segmented, n_tokens, n_tokens_translation); and the
count_words macro's unit test failing on the old macro."""

from __future__ import annotations

import hashlib
import re
import socket
from pathlib import Path

import duckdb
import pytest

from csrwh.config import PROJECT_ROOT
from csrwh.measures import text as text_measures
from csrwh.measures.text import (
    cl100k_base,
    is_chinese,
    segment,
    segmented_word_count,
    shipped_cl100k_path,
    tiktoken_cl100k_definition,
    token_count,
    whitespace_word_count,
)

#: sha256 of cl100k_base.tiktoken as published by OpenAI and pinned in tiktoken's
#: tiktoken_ext/openai_public.py (tiktoken 0.14.0).
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


# --------------------------------------------------------------------------------------
# Words
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Hello big world",
        "a\u00a0b",
        "Hello \u00a0 world",
        "ok\u3000",
        "\ta\t\tb\x0bc\x0cd\re\x1cf\x85g",
        "a\u200bb",
        "",
        "   ",
    ],
)
def test_whitespace_words_are_python_split(text: str) -> None:
    assert whitespace_word_count(text) == len(text.split())


def test_whitespace_words_of_null() -> None:
    assert whitespace_word_count(None) == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我打算秋天去冰岛玩4天", True),
        ("推荐一款 iPhone", True),  # 4 Han of 10 letters
        ("Please recommend 一本书", False),  # 3 Han of 18 letters
        ("日本語はどうですか。", False),  # kana: Japanese
        ("Hello world", False),
        ("12345 !!!", False),
        ("", False),
        (None, False),
    ],
)
def test_is_chinese(text, expected) -> None:
    assert is_chinese(text, 0.3) is expected


def test_segment_known_answers() -> None:
    # jieba's README example (accurate mode); without HMM an unseen word splits into characters
    assert segment("我来到北京清华大学") == ["我", "来到", "北京", "清华大学"]
    assert segment("他来到了网易杭研大厦") == ["他", "来到", "了", "网易", "杭", "研", "大厦"]
    assert segment("我想买iPhone 15，预算5000元。") == [
        "我",
        "想",
        "买",
        "iPhone",
        " ",
        "15",
        "，",
        "预算",
        "5000",
        "元",
        "。",
    ]


def test_segmented_words_exclude_punctuation_whitespace_and_symbols() -> None:
    # tokens: 我 想 买 iPhone ' ' 15 ， 预算 5000 元 。 -> 8 with a letter or digit
    assert segmented_word_count("我想买iPhone 15，预算5000元。") == (8, True)
    assert segmented_word_count("你好，世界！🙂") == (2, True)
    assert segmented_word_count("！？……") == (1, False)  # no letters: not Chinese


def test_segmented_words_of_other_text_are_python_split() -> None:
    assert segmented_word_count("Don't stop\u00a0now, ok?") == (4, False)
    assert segmented_word_count("日本語はどうですか。") == (1, False)
    assert segmented_word_count(None) == (0, False)
    assert segmented_word_count("") == (0, False)


def test_segmentation_is_deterministic() -> None:
    text = "小明硕士毕业于中国科学院计算所，后在日本京都大学深造。" * 20
    first = [segmented_word_count(text) for _ in range(3)]
    text_measures._segmenter.cache_clear()
    assert [segmented_word_count(text) for _ in range(3)] == first


# --------------------------------------------------------------------------------------
# Tokens
# --------------------------------------------------------------------------------------


def test_tiktoken_source_pins_the_published_cl100k_hash() -> None:
    definition = tiktoken_cl100k_definition()
    assert definition.expected_hash == CL100K_SHA256
    # the same pin, read as plain text from tiktoken's source (not through our AST reader)
    source = definition.source_path.read_text(encoding="utf-8")
    block = source[source.index("def cl100k_base") : source.index("def o200k_base")]
    assert re.search(r'expected_hash="([0-9a-f]{64})"', block).group(1) == CL100K_SHA256
    assert definition.special_tokens["<|endoftext|>"] == 100257
    assert definition.special_tokens["<|endofprompt|>"] == 100276
    assert definition.pat_str.startswith("'(?i:[sdmt]|ll|ve|re)|")


def test_shipped_cl100k_file_matches_the_pinned_hash() -> None:
    path = shipped_cl100k_path()
    assert path.name == "cl100k_base.tiktoken"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == CL100K_SHA256


@pytest.fixture()
def no_network(monkeypatch: pytest.MonkeyPatch):
    """Every socket connection and name lookup fails; the encoding is rebuilt from scratch."""

    def refuse(*args, **kwargs):
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken's own cache may not help either
    cl100k_base.cache_clear()
    yield
    cl100k_base.cache_clear()


def test_encoding_works_with_network_disabled(no_network) -> None:
    with pytest.raises(OSError):
        socket.create_connection(("example.org", 443))
    encoding = cl100k_base()
    # known answers of cl100k_base
    assert encoding.encode_ordinary("hello world") == [15339, 1917]
    assert encoding.encode_ordinary("你好，世界") == [57668, 53901, 3922, 3574, 244, 98220]
    assert encoding.n_vocab == 100277
    assert token_count(["hello world", "你好，世界", "", None]) == [2, 6, 0, None]
    # a special-token string counts as ordinary text (encode() would raise on it)
    assert token_count(["<|endoftext|>"]) == [7]


def test_encoding_refuses_a_file_that_does_not_match_the_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tampered = tmp_path / "cl100k_base.tiktoken"
    data = bytearray(shipped_cl100k_path().read_bytes())
    assert data[:4] == b"IQ=="  # token 0 is "!"
    data[:4] = b"Ig=="  # now it is '"': a different vocabulary
    tampered.write_bytes(bytes(data))
    monkeypatch.setattr(text_measures, "shipped_cl100k_path", lambda: tampered)
    cl100k_base.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="refusing to count tokens"):
            cl100k_base()
    finally:
        cl100k_base.cache_clear()


# --------------------------------------------------------------------------------------
# The functions the model calls, registered on DuckDB (csrwh.dbt_support.udfs)
# --------------------------------------------------------------------------------------


def test_registered_functions() -> None:
    import duckdb

    from csrwh.dbt_support.udfs import register_duckdb

    con = duckdb.connect()
    register_duckdb(con)
    con.execute(
        "create table turns as select * from (values ('b', 0, '你好，世界', null), "
        "('a', 1, 'Hello\u00a0world', '你好'), ('a', 0, null, null), "
        "('c', 0, 'I would like 一本书', null)) as t(conversation_id, turn_index, text, "
        "text_translation)"
    )
    rows = con.execute(
        "select conversation_id, turn_index, is_segmented, "
        "csrwh_words_segmented(t, is_segmented), csrwh_tokens(t), "
        "csrwh_tokens(text_translation) from (select *, coalesce(text, '') as t, "
        "csrwh_is_chinese(coalesce(text, ''), 0.3) as is_segmented from turns) "
        "order by all"
    ).fetchall()
    assert rows == [
        ("a", 0, False, 0, 0, None),
        ("a", 1, False, 2, 3, 2),
        ("b", 0, True, 2, 6, None),
        ("c", 0, False, 4, 7, None),  # 3 Han of 13 letters: not Chinese
    ]


# --------------------------------------------------------------------------------------
# The count_words macro's unit test fails on the old macro
# --------------------------------------------------------------------------------------

OLD_COUNT_WORDS = (
    "(length(regexp_extract_all(coalesce(text, ''), '\\p{Han}')) + length(regexp_extract_all("
    "regexp_replace(coalesce(text, ''), '\\p{Han}', ' ', 'g'), '\\S+')))"
)


def _macro_whitespace_class() -> str:
    source = (PROJECT_ROOT / "macros" / "count_words.sql").read_text(encoding="utf-8")
    body = re.search(
        r"macro csrwh_python_whitespace_class\(\) -%\}\s*(.*?)\s*\{%- endmacro", source, re.DOTALL
    )
    return body.group(1)


def _run_macro_test(expression: str) -> list[tuple]:
    sql = (PROJECT_ROOT / "tests/dbt/macros/test_count_words__literal_cases.sql").read_text(
        encoding="utf-8"
    )
    sql = "\n".join(line for line in sql.splitlines() if not line.lstrip().startswith("--"))
    sql = sql.replace("{{ count_words('text') }}", expression)
    sql = re.sub(r"\{\{ unicode_char\((\d+)\) \}\}", r"chr(\1)", sql)  # DuckDB's macro body
    assert "{{" not in sql, "a Jinja call this test does not render"
    return duckdb.sql(sql).fetchall()


def test_macro_whitespace_class_is_pythons_isspace() -> None:
    klass = _macro_whitespace_class()
    found = {
        c
        for (c,) in duckdb.sql(
            f"select unnest(regexp_extract_all(s, '[{klass}]')) from "
            "(select string_agg(chr(cast(i as integer)), '') as s from range(1, 12289) t(i) "
            "where i not between 55296 and 57343)"
        ).fetchall()
    }
    assert found == {chr(i) for i in range(1, 12289) if chr(i).isspace()}


def _rendered(macro: str, text: str = "text") -> str:
    """The DuckDB body of one macro of macros/count_words.sql (``default__<name>``), rendered."""
    import jinja2

    source = (PROJECT_ROOT / "macros" / "count_words.sql").read_text(encoding="utf-8")
    module = jinja2.Environment().from_string(source).module
    return str(getattr(module, f"default__{macro}")(text)).strip()


#: The earlier macros (one list element per matched character), the reference values.
LISTED = {
    "count_han_chars": "length(regexp_extract_all(coalesce(text, ''), '\\p{Han}'))",
    "count_letters": "length(regexp_extract_all(coalesce(text, ''), '\\p{L}'))",
    "count_words": (
        "(length(regexp_extract_all(coalesce(text, ''), '\\p{Han}')) + length(regexp_extract_all("
        "regexp_replace(coalesce(text, ''), '\\p{Han}', ' ', 'g'), "
        f"'[^{_macro_whitespace_class()}]+')))"
    ),
}


def test_count_words_unit_test_fails_on_the_old_macro() -> None:
    assert _run_macro_test(_rendered("count_words")) == []
    assert _run_macro_test(LISTED["count_words"]) == []
    failing = {row[0] for row in _run_macro_test(OLD_COUNT_WORDS)}
    assert {"a\u00a0b", "Hello \u00a0 world", "你好\u3000世界", "\u3000"} <= failing


# --------------------------------------------------------------------------------------
# The counting macros build no list of one string per character
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("macro", sorted(LISTED))
def test_counting_macros_list_no_single_characters(macro: str) -> None:
    """Han characters and letters are counted as the length of what is left once every other
    character is removed; a list of one-character strings per text (``regexp_extract_all``
    of ``\\p{Han}`` or ``\\p{L}``) made conversations and turns 2-3x slower on the real
    corpora (docs/benchmarks-history.md)."""
    rendered = _rendered(macro)
    for single in ("'\\p{Han}'", "'\\p{L}'"):
        assert f"regexp_extract_all(coalesce(text, ''), {single})" not in rendered
    assert "regexp_extract_all(regexp_replace(" not in rendered


@pytest.mark.parametrize("macro", sorted(LISTED))
def test_counting_macros_equal_the_listed_ones(macro: str) -> None:
    """Every code point alone, and texts mixing Han, kana, letters, digits, marks, symbols
    and every whitespace character: the same counts as the earlier macros."""
    klass = _macro_whitespace_class()
    texts = duckdb.sql(
        "select chr(cast(i as integer)) as text from range(1, 1114112) t(i) "
        "where i not between 55296 and 57343"
    )
    mixed = duckdb.sql(
        "select * from (values ('你好 world'), ('你好，世界！Hello,world'), ('a' || chr(160) || 'b'),"
        " ('你好' || chr(12288) || '世界'), ('カタカナと漢字 mixed'), ('٣ ا ب ت'), ('é x'),"
        " ('🙂 emoji 🙂🙂'), (''), (null), ('  \t\n '), ('龘𠀀𪚥 ext-B')) v(text)"
    )
    whitespace = duckdb.sql(
        "select 'x' || unnest(regexp_extract_all(s, '[" + klass + "]')) || '中y' as text from "
        "(select string_agg(chr(cast(i as integer)), '') as s from range(1, 12289) t(i) "
        "where i not between 55296 and 57343)"
    )
    for relation in (texts, mixed, whitespace):
        differing = relation.query(
            "t",
            f"select text from t where {_rendered(macro)} is distinct from {LISTED[macro]}",
        ).fetchall()
        assert differing == [], differing[:5]
