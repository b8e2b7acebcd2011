{#- `name as {{ cte_materialized() }} (...)`: a CTE evaluated once although it is read twice.
    DuckDB inlines a CTE at each reference (int_turn_text_measures' measures, Python functions,
    would run twice); Spark has no such keyword (it leaves the CTE as it is). -#}
{% macro cte_materialized() -%}
    {{ return(adapter.dispatch('cte_materialized', 'csrwh')()) }}
{%- endmacro %}

{% macro default__cte_materialized() -%}
{%- endmacro %}

{% macro duckdb__cte_materialized() -%}
    materialized
{%- endmacro %}
