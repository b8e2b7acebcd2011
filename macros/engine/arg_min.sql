{#- Aggregate: the value of the row with the least ordering value: arg_min('partition_name', 'conversation_id'). -#}
{% macro arg_min(value, ordering) -%}
    {{ return(adapter.dispatch('arg_min', 'csrwh')(value, ordering)) }}
{%- endmacro %}

{% macro default__arg_min(value, ordering) -%}
    arg_min({{ value }}, {{ ordering }})
{%- endmacro %}

{% macro spark__arg_min(value, ordering) -%}
    min_by({{ value }}, {{ ordering }})
{%- endmacro %}
