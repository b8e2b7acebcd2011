{#- A list of lists concatenated, NULL inner lists skipped: flatten_lists('all_keyword_lists'). -#}
{% macro flatten_lists(list_expr) -%}
    {{ return(adapter.dispatch('flatten_lists', 'csrwh')(list_expr)) }}
{%- endmacro %}

{% macro default__flatten_lists(list_expr) -%}
    flatten({{ list_expr }})
{%- endmacro %}

{#- Spark's flatten is NULL when any inner list is. -#}
{% macro spark__flatten_lists(list_expr) -%}
    flatten(filter({{ list_expr }}, csrwh_list -> csrwh_list is not null))
{%- endmacro %}
