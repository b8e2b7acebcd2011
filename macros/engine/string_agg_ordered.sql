{#- Aggregate: the group's non-NULL texts joined by a separator, in an order: string_agg_ordered('t', 'chr(10)', 'line_number'). -#}
{% macro string_agg_ordered(text, separator, order_by) -%}
    {{ return(adapter.dispatch('string_agg_ordered', 'csrwh')(text, separator, order_by)) }}
{%- endmacro %}

{% macro default__string_agg_ordered(text, separator, order_by) -%}
    string_agg({{ text }}, {{ separator }} order by {{ order_by }})
{%- endmacro %}

{% macro spark__string_agg_ordered(text, separator, order_by) -%}
    listagg({{ text }}, {{ separator }}) within group (order by {{ order_by }})
{%- endmacro %}
