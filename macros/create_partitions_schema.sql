{#- The schema the corpus-partitioned Python models keep their inputs digests in
    (csrwh.dbt_support.partitions.SCHEMA). Created once, before any model runs: two Python
    models running at once would each create it in their own transaction, and DuckDB refuses
    the second commit (a catalog write-write conflict). Only DuckDB runs the Python models. -#}
{% macro create_partitions_schema() %}
  {%- if target.type == 'duckdb' -%}
    create schema if not exists "{{ target.database }}"."partitions"
  {%- else -%}
    select 1
  {%- endif -%}
{% endmacro %}
