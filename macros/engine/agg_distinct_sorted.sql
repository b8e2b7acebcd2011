{#- Aggregate: the group's distinct non-NULL values as a sorted list: agg_distinct_sorted('environment'). -#}
{% macro agg_distinct_sorted(expr) -%}
    {{ return(adapter.dispatch('agg_distinct_sorted', 'csrwh')(expr)) }}
{%- endmacro %}

{% macro default__agg_distinct_sorted(expr) -%}
    list(distinct {{ expr }} order by {{ expr }})
{%- endmacro %}

{% macro spark__agg_distinct_sorted(expr) -%}
    array_sort(collect_set({{ expr }}))
{%- endmacro %}
