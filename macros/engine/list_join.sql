{#- A list's non-NULL texts joined by a separator: list_join('keywords', "'; '"). -#}
{% macro list_join(list_expr, separator) -%}
    {{ return(adapter.dispatch('list_join', 'csrwh')(list_expr, separator)) }}
{%- endmacro %}

{% macro default__list_join(list_expr, separator) -%}
    array_to_string({{ list_expr }}, {{ separator }})
{%- endmacro %}

{% macro spark__list_join(list_expr, separator) -%}
    array_join({{ list_expr }}, {{ separator }})
{%- endmacro %}
