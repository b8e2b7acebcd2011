{#-
    In a select list (as its own items, no alias after it): each element of a list with its
    0-based position, as two columns: unnest_with_index('messages', 'message', 'message_index').
    DuckDB unnests the list and range(len(list)) side by side; Spark has posexplode.
-#}
{% macro unnest_with_index(list_expr, value, index) -%}
    {{ return(adapter.dispatch('unnest_with_index', 'csrwh')(list_expr, value, index)) }}
{%- endmacro %}

{% macro default__unnest_with_index(list_expr, value, index) -%}
    unnest({{ list_expr }}) as {{ value }},
        unnest(range(len({{ list_expr }}))) as {{ index }}
{%- endmacro %}

{% macro spark__unnest_with_index(list_expr, value, index) -%}
    posexplode({{ list_expr }}) as ({{ index }}, {{ value }})
{%- endmacro %}
