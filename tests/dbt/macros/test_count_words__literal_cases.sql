-- count_words over literal cases: each CJK character one word, the rest split exactly as
-- Python's str.split() splits (the str.isspace() characters, Unicode ones included).
-- The Unicode-space rows fail on the old macro, whose '\S+' treated only ASCII
-- space, \t, \n, \f and \r as whitespace (so a no-break space or U+3000 made a word).
-- unicode_char, not chr: Spark's chr takes the code point mod 256 (macros/engine/unicode_char.sql).
with

cases as (
    select * from (
        values
            ('Hello big world', 3),
            ('你好 world', 3),
            ('中文测试', 4),
            ('  spaced   out  ', 2),
            ('', 0),
            (null, 0),
            ('line' || {{ unicode_char(10) }} || 'break' || {{ unicode_char(9) }} || 'tab', 3),
            -- no-break space U+00A0: between words, and standing alone between spaces
            ('a' || {{ unicode_char(160) }} || 'b', 2),
            ('Hello ' || {{ unicode_char(160) }} || ' world', 2),
            -- ideographic space U+3000 between Han characters and alone
            ('你好' || {{ unicode_char(12288) }} || '世界', 4),
            ('ok' || {{ unicode_char(12288) }}, 1),
            ({{ unicode_char(12288) }}, 0),
            -- tabs, vertical tab, form feed, CR, file/group/record/unit separators, NEL
            ({{ unicode_char(9) }} || 'a' || {{ unicode_char(9) }} || {{ unicode_char(9) }} || 'b' || {{ unicode_char(9) }}, 2),
            ('a' || {{ unicode_char(11) }} || 'b' || {{ unicode_char(12) }} || 'c' || {{ unicode_char(13) }} || 'd', 4),
            ('a' || {{ unicode_char(28) }} || 'b' || {{ unicode_char(29) }} || 'c' || {{ unicode_char(30) }} || 'd' || {{ unicode_char(31) }} || 'e', 5),
            ('a' || {{ unicode_char(133) }} || 'b', 2),
            -- U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F
            ('a' || {{ unicode_char(5760) }} || 'b' || {{ unicode_char(8192) }} || 'c' || {{ unicode_char(8202) }} || 'd', 4),
            ('a' || {{ unicode_char(8232) }} || 'b' || {{ unicode_char(8233) }} || 'c' || {{ unicode_char(8239) }} || 'd' || {{ unicode_char(8287) }} || 'e', 5),
            -- not whitespace for Python: zero-width space U+200B, word joiner U+2060
            ('a' || {{ unicode_char(8203) }} || 'b', 1),
            ('a' || {{ unicode_char(8288) }} || 'b', 1)
    ) as literal_cases (text, expected_words)
)

select
    text,
    expected_words,
    {{ count_words('text') }} as counted_words
from cases
where {{ count_words('text') }} <> expected_words
