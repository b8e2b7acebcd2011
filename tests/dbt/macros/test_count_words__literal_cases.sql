-- count_words over literal cases: each CJK character one word, the rest split exactly as
-- Python's str.split() splits (the str.isspace() characters, Unicode ones included).
-- The Unicode-space rows fail on the old macro, whose '\S+' treated only ASCII
-- space, \t, \n, \f and \r as whitespace (so a no-break space or U+3000 made a word).
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
            ('line' || chr(10) || 'break' || chr(9) || 'tab', 3),
            -- no-break space U+00A0: between words, and standing alone between spaces
            ('a' || chr(160) || 'b', 2),
            ('Hello ' || chr(160) || ' world', 2),
            -- ideographic space U+3000 between Han characters and alone
            ('你好' || chr(12288) || '世界', 4),
            ('ok' || chr(12288), 1),
            (chr(12288), 0),
            -- tabs, vertical tab, form feed, CR, file/group/record/unit separators, NEL
            (chr(9) || 'a' || chr(9) || chr(9) || 'b' || chr(9), 2),
            ('a' || chr(11) || 'b' || chr(12) || 'c' || chr(13) || 'd', 4),
            ('a' || chr(28) || 'b' || chr(29) || 'c' || chr(30) || 'd' || chr(31) || 'e', 5),
            ('a' || chr(133) || 'b', 2),
            -- U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F
            ('a' || chr(5760) || 'b' || chr(8192) || 'c' || chr(8202) || 'd', 4),
            ('a' || chr(8232) || 'b' || chr(8233) || 'c' || chr(8239) || 'd' || chr(8287) || 'e', 5),
            -- not whitespace for Python: zero-width space U+200B, word joiner U+2060
            ('a' || chr(8203) || 'b', 1),
            ('a' || chr(8288) || 'b', 1)
    ) as literal_cases (text, expected_words)
)

select
    text,
    expected_words,
    {{ count_words('text') }} as counted_words
from cases
where {{ count_words('text') }} <> expected_words
