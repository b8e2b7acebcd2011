{#- The n-th element of a list, 1-based, NULL past its end: array_at('fields', 2) (Spark's arr[i] is 0-based). -#}
{% macro array_at(list_expr, n) -%}
    {{ return(adapter.dispatch('array_at', 'csrwh')(list_expr, n)) }}
{%- endmacro %}

{% macro default__array_at(list_expr, n) -%}
    {{ list_expr }}[{{ n }}]
{%- endmacro %}

{% macro spark__array_at(list_expr, n) -%}
    try_element_at({{ list_expr }}, {{ n }})
{%- endmacro %}
