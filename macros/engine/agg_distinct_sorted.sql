{#-
    Aggregate: the group's distinct values as a sorted list: agg_distinct_sorted('environment').
    non_null=true leaves NULLs out and gives [] when there is no other value (on Spark always).
-#}
{% macro agg_distinct_sorted(expr, non_null=false) -%}
    {{ return(adapter.dispatch('agg_distinct_sorted', 'csrwh')(expr, non_null)) }}
{%- endmacro %}

{% macro default__agg_distinct_sorted(expr, non_null=false) -%}
    {%- if non_null -%}
        coalesce(list(distinct {{ expr }} order by {{ expr }}) filter (where {{ expr }} is not null), [])
    {%- else -%}
        list(distinct {{ expr }} order by {{ expr }})
    {%- endif -%}
{%- endmacro %}

{% macro spark__agg_distinct_sorted(expr, non_null=false) -%}
    array_sort(collect_set({{ expr }}))
{%- endmacro %}
