-- count_han_chars and count_letters over literal cases (the inputs of language detection).
with

cases as (
    select * from (
        values
            ('Hello big world', 0, 13),
            ('你好 world 2', 2, 7),
            ('中文，测试。', 4, 4),
            ('*** 42 ###', 0, 0),
            ('', 0, 0),
            (null, 0, 0),
            ('a' || chr(10) || '学' || chr(9) || ' b', 1, 3)
    ) as literal_cases (text, expected_han, expected_letters)
)

select
    text,
    expected_han,
    expected_letters,
    {{ count_han_chars('text') }} as counted_han,
    {{ count_letters('text') }} as counted_letters
from cases
where {{ count_han_chars('text') }} <> expected_han
    or {{ count_letters('text') }} <> expected_letters
