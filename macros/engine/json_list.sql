{#-
    A JSON array (at a JSONPath of json_expr) as a SQL list of its JSON values, to unnest with
    unnest_join: json_list('payload', '$.conversation[*]'). DuckDB: cast(... as json[]); Spark:
    from_json(..., 'array<string>'), values in the form macros/engine/json_text.sql documents
    (a `[*]` at the end of the path is dropped: Spark's get_json_object unwraps one-element
    wildcard results).
-#}
{% macro json_list(json_expr, path='$') -%}
    {{ return(adapter.dispatch('json_list', 'csrwh')(json_expr, path)) }}
{%- endmacro %}

{% macro default__json_list(json_expr, path='$') -%}
    {%- if path == '$' -%}
        cast({{ json_expr }} as json[])
    {%- else -%}
        cast({{ json_expr }} -> '{{ path }}' as json[])
    {%- endif -%}
{%- endmacro %}

{% macro spark__json_list(json_expr, path='$') -%}
    {%- set array_path = path[:-3] if path.endswith('[*]') else path -%}
    from_json({{ spark__json_text(json_expr, array_path) }}, 'array<string>')
{%- endmacro %}
