{#- The number of elements of a list (NULL for NULL): array_size('environments'). -#}
{% macro array_size(list_expr) -%}
    {{ return(adapter.dispatch('array_size', 'csrwh')(list_expr)) }}
{%- endmacro %}

{% macro default__array_size(list_expr) -%}
    len({{ list_expr }})
{%- endmacro %}

{% macro spark__array_size(list_expr) -%}
    size({{ list_expr }})
{%- endmacro %}
