{#- Aggregate: the group's distinct non-NULL, non-empty texts, sorted, joined by a separator; NULL when none: string_agg_distinct_sorted('k', "'; '"). -#}
{% macro string_agg_distinct_sorted(text, separator) -%}
    {{ return(adapter.dispatch('string_agg_distinct_sorted', 'csrwh')(text, separator)) }}
{%- endmacro %}

{% macro default__string_agg_distinct_sorted(text, separator) -%}
    string_agg(distinct {{ text }}, {{ separator }} order by {{ text }})
{%- endmacro %}

{% macro spark__string_agg_distinct_sorted(text, separator) -%}
    nullif(array_join(array_sort(collect_set({{ text }})), {{ separator }}), '')
{%- endmacro %}
