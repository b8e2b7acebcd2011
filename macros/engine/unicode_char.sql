{#-
    The character of a Unicode code point: unicode_char(12288) = U+3000. DuckDB's chr takes
    any code point; Spark's chr takes it mod 256 (chr(12288) is U+0000), so Spark formats the
    code point with Java's %c.
-#}
{% macro unicode_char(code_point) -%}
    {{ return(adapter.dispatch('unicode_char', 'csrwh')(code_point)) }}
{%- endmacro %}

{% macro default__unicode_char(code_point) -%}
    chr({{ code_point }})
{%- endmacro %}

{% macro spark__unicode_char(code_point) -%}
    format_string('%c', {{ code_point }})
{%- endmacro %}
