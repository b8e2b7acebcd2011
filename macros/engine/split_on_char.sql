{#-
    A text split on one character (a SQL expression, e.g. chr(10)) into a list, empty pieces
    kept: split_on_char('conversation_text', 'chr(10)'). Spark's split takes a regular
    expression, so the character goes into a class.
-#}
{% macro split_on_char(text, char_expr) -%}
    {{ return(adapter.dispatch('split_on_char', 'csrwh')(text, char_expr)) }}
{%- endmacro %}

{% macro default__split_on_char(text, char_expr) -%}
    string_split({{ text }}, {{ char_expr }})
{%- endmacro %}

{% macro spark__split_on_char(text, char_expr) -%}
    split({{ text }}, concat('[', {{ char_expr }}, ']'), -1)
{%- endmacro %}
