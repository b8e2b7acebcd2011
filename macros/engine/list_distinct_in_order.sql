{#- A list without repeats, each value at its first position: list_distinct_in_order('all_keywords'). -#}
{% macro list_distinct_in_order(list_expr) -%}
    {{ return(adapter.dispatch('list_distinct_in_order', 'csrwh')(list_expr)) }}
{%- endmacro %}

{% macro default__list_distinct_in_order(list_expr) -%}
    list_filter(
                        {{ list_expr }},
                        lambda csrwh_value, csrwh_position: list_position({{ list_expr }}, csrwh_value) = csrwh_position
                    )
{%- endmacro %}

{% macro spark__list_distinct_in_order(list_expr) -%}
    array_distinct({{ list_expr }})
{%- endmacro %}
