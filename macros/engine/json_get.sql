{#-
    The JSON value at a JSONPath (DuckDB's `->`): json_get('payload', '$.agent') = {"id": ...}.
    On Spark the value in the form json_text documents (macros/engine/json_text.sql).
-#}
{% macro json_get(json_expr, path) -%}
    {{ return(adapter.dispatch('json_get', 'csrwh')(json_expr, path)) }}
{%- endmacro %}

{% macro default__json_get(json_expr, path) -%}
    ({{ json_expr }} -> '{{ path }}')
{%- endmacro %}

{% macro spark__json_get(json_expr, path) -%}
    {{ spark__json_text(json_expr, path) }}
{%- endmacro %}
