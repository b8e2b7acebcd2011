{#- In a select list: one output row per element of a list (none for an empty or NULL list): unnest_list('messages') as message. -#}
{% macro unnest_list(list_expr) -%}
    {{ return(adapter.dispatch('unnest_list', 'csrwh')(list_expr)) }}
{%- endmacro %}

{% macro default__unnest_list(list_expr) -%}
    unnest({{ list_expr }})
{%- endmacro %}

{% macro spark__unnest_list(list_expr) -%}
    explode({{ list_expr }})
{%- endmacro %}
