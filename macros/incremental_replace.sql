{#- Incremental strategy "replace": the model returned its whole table, which
    replaces the previous one. The Python models that use it read their previous table
    (dbt.this) when dbt.is_incremental and compute only what it does not hold
    (csrwh/dbt_support/partitions.py); --full-refresh builds them from nothing. -#}
{% macro get_incremental_replace_sql(arg_dict) -%}
    {%- set columns = get_quoted_csv(arg_dict["dest_columns"] | map(attribute="name")) -%}
    delete from {{ arg_dict["target_relation"] }};
    insert into {{ arg_dict["target_relation"] }} ({{ columns }})
    select {{ columns }} from {{ arg_dict["temp_relation"] }};
    {#- a Python model's "temporary" relation is an ordinary table (its Python side cannot
        make a temporary one) that dbt leaves behind: dropped here -#}
    drop table if exists {{ arg_dict["temp_relation"] }}
{%- endmacro %}
