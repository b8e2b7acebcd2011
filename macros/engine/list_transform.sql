{#- Each element of a list mapped: list_transform('ids', 'id', "'cosrec:' || id"). -#}
{% macro list_transform(list_expr, variable, expr) -%}
    {{ return(adapter.dispatch('list_transform', 'csrwh')(list_expr, variable, expr)) }}
{%- endmacro %}

{% macro default__list_transform(list_expr, variable, expr) -%}
    list_transform({{ list_expr }}, lambda {{ variable }}: {{ expr }})
{%- endmacro %}

{% macro spark__list_transform(list_expr, variable, expr) -%}
    transform({{ list_expr }}, {{ variable }} -> {{ expr }})
{%- endmacro %}
