{#- The number of elements of a list (NULL for NULL): array_size('environments'). -#}
{% macro array_size(list_expr) -%}
    {{ return(adapter.dispatch('array_size', 'csrwh')(list_expr)) }}
{%- endmacro %}

{% macro default__array_size(list_expr) -%}
    len({{ list_expr }})
{%- endmacro %}

{#- size(NULL) is -1 on Spark unless ANSI mode is on: NULL here either way, as DuckDB's len. -#}
{% macro spark__array_size(list_expr) -%}
    case when {{ list_expr }} is not null then size({{ list_expr }}) end
{%- endmacro %}
