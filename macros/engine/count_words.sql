{#-
    Spark versions of count_words, count_han_chars and count_letters (macros/count_words.sql):
    the same counts with Java's regular expressions. Han is `\p{IsHan}` there (`\p{Han}` is
    RE2's); regexp_extract_all takes group 0 (its default, 1, needs a group); regexp_replace
    replaces every match without a 'g' flag; `size` of an array is a bigint as DuckDB's
    `length` of a list. The whitespace class is the same (`\x{..}` is Java syntax too).
-#}
{% macro spark__count_han_chars(text) -%}
    cast(size(regexp_extract_all(coalesce({{ text }}, ''), '\p{IsHan}', 0)) as bigint)
{%- endmacro %}

{% macro spark__count_letters(text) -%}
    cast(size(regexp_extract_all(coalesce({{ text }}, ''), '\p{L}', 0)) as bigint)
{%- endmacro %}

{% macro spark__count_words(text) -%}
    (
        {{ spark__count_han_chars(text) }}
        + cast(size(regexp_extract_all(
            regexp_replace(coalesce({{ text }}, ''), '\p{IsHan}', ' '),
            '[^{{ csrwh_python_whitespace_class() }}]+',
            0
        )) as bigint)
    )
{%- endmacro %}
