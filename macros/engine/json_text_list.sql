{#-
    The elements of the JSON array at a JSONPath as a list of text (strings without quotes),
    an empty list when the value is missing, null or not an array (DuckDB's `->> '$.a[*]'`):
    json_text_list('payload', '$.categories').
-#}
{% macro json_text_list(json_expr, path) -%}
    {{ return(adapter.dispatch('json_text_list', 'csrwh')(json_expr, path)) }}
{%- endmacro %}

{% macro default__json_text_list(json_expr, path) -%}
    cast({{ json_expr }} ->> '{{ path }}[*]' as varchar[])
{%- endmacro %}

{% macro spark__json_text_list(json_expr, path) -%}
    coalesce(
        from_json({{ spark__json_text(json_expr, path) }}, 'array<string>'),
        cast(array() as array<string>)
    )
{%- endmacro %}
