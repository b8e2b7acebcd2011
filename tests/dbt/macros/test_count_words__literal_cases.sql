-- count_words over literal cases: English by whitespace, each CJK character one word.
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
            ('line' || chr(10) || 'break' || chr(9) || 'tab', 3)
    ) as literal_cases (text, expected_words)
)

select
    text,
    expected_words,
    {{ count_words('text') }} as counted_words
from cases
where {{ count_words('text') }} <> expected_words
