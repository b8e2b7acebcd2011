{#-
    Words in a text, comparable across languages: whitespace-separated tokens for
    non-CJK text, and every CJK (Han) character counted as one word.
    count_words('Hello big world') = 3; count_words('你好 world') = 3.
-#}
{% macro count_words(text) -%}
    {{ return(adapter.dispatch('count_words', 'csrwh')(text)) }}
{%- endmacro %}

{% macro default__count_words(text) -%}
    (
        length(regexp_extract_all(coalesce({{ text }}, ''), '\p{Han}'))
        + length(regexp_extract_all(regexp_replace(coalesce({{ text }}, ''), '\p{Han}', ' ', 'g'), '\S+'))
    )
{%- endmacro %}

{#- Han (CJK ideograph) characters in a text: count_han_chars('你好 world') = 2. -#}
{% macro count_han_chars(text) -%}
    {{ return(adapter.dispatch('count_han_chars', 'csrwh')(text)) }}
{%- endmacro %}

{% macro default__count_han_chars(text) -%}
    length(regexp_extract_all(coalesce({{ text }}, ''), '\p{Han}'))
{%- endmacro %}

{#- Letters of any script (Unicode category L; Han characters count): count_letters('你好, world 2') = 7. -#}
{% macro count_letters(text) -%}
    {{ return(adapter.dispatch('count_letters', 'csrwh')(text)) }}
{%- endmacro %}

{% macro default__count_letters(text) -%}
    length(regexp_extract_all(coalesce({{ text }}, ''), '\p{L}'))
{%- endmacro %}
