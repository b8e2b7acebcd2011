{#-
    Aggregate: the group's values (NULLs included) as a list in an order: agg_list_ordered('keywords',
    'conversation_id'). On Spark the list is sorted on (order_by, value) structs, so order_by
    should be unique within the group.
-#}
{% macro agg_list_ordered(expr, order_by) -%}
    {{ return(adapter.dispatch('agg_list_ordered', 'csrwh')(expr, order_by)) }}
{%- endmacro %}

{% macro default__agg_list_ordered(expr, order_by) -%}
    list({{ expr }} order by {{ order_by }})
{%- endmacro %}

{% macro spark__agg_list_ordered(expr, order_by) -%}
    transform(
        array_sort(collect_list(named_struct('csrwh_key', {{ order_by }}, 'csrwh_value', {{ expr }}))),
        csrwh_entry -> csrwh_entry.csrwh_value
    )
{%- endmacro %}
