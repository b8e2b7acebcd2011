{#-
    The lengths of the JSON arrays at several JSONPaths, as a list (read them with array_at):
    json_array_lengths('payload', ['$.a', '$.b']). DuckDB parses the document once for all.
-#}
{% macro json_array_lengths(json_expr, paths) -%}
    {{ return(adapter.dispatch('json_array_lengths', 'csrwh')(json_expr, paths)) }}
{%- endmacro %}

{% macro default__json_array_lengths(json_expr, paths) -%}
    json_array_length({{ json_expr }}, [{%- for path in paths %}'{{ path }}'{{ ", " if not loop.last }}{%- endfor %}])
{%- endmacro %}

{% macro spark__json_array_lengths(json_expr, paths) -%}
    array({%- for path in paths %}{{ spark__json_array_length_at(json_expr, path) }}{{ ", " if not loop.last }}{%- endfor %})
{%- endmacro %}
