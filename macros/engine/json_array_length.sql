{#- The length of the JSON array at a JSONPath: json_array_length_at('payload', '$.conversation') = 3. -#}
{% macro json_array_length_at(json_expr, path='$') -%}
    {{ return(adapter.dispatch('json_array_length_at', 'csrwh')(json_expr, path)) }}
{%- endmacro %}

{% macro default__json_array_length_at(json_expr, path='$') -%}
    {%- if path == '$' -%}
        json_array_length({{ json_expr }})
    {%- else -%}
        json_array_length({{ json_expr }}, '{{ path }}')
    {%- endif -%}
{%- endmacro %}

{% macro spark__json_array_length_at(json_expr, path='$') -%}
    json_array_length({{ spark__json_text(json_expr, path) }})
{%- endmacro %}
