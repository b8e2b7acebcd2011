{#-
    `dbt run-operation spark_register_raw` (csrwh/pipeline/spark.py, before `dbt build`): on a
    Spark target, register the raw tables that
    `csrwh build --engine spark` wrote as Parquet (one folder per table under
    $CSRWH_SPARK_RAW_DIR, csrwh/pipeline/spark.py) as the tables of database `raw` the sources
    read. Every source of schema `raw` is declared once, in models/staging; nothing to do on
    other targets (DuckDB reads the raw schema the ingest wrote).

    A cluster build (csrwh/pipeline/spark_cluster.py) sets $CSRWH_SPARK_STAGE, its folder on
    the stage every worker shares: `raw` and every database the models write are dropped and
    created with their locations there (`<stage folder>/<database>.db`), so no table is
    written to the cluster's own warehouse dir, which the workers need not share.
-#}
{% macro spark_register_raw() %}
    {%- if execute and target.type == 'spark' -%}
        {%- set root = env_var('CSRWH_SPARK_RAW_DIR', '') -%}
        {%- if root == '' -%}
            {{ exceptions.raise_compiler_error(
                "CSRWH_SPARK_RAW_DIR is not set: run the Spark target through csrwh build --engine spark"
            ) }}
        {%- endif -%}
        {%- set stage = env_var('CSRWH_SPARK_STAGE', '') -%}
        {%- if stage != '' -%}
            {%- set databases = ['raw'] -%}
            {%- for node in graph.nodes.values() if node.resource_type in ('model', 'seed', 'snapshot') -%}
                {%- if node.schema not in databases -%}{%- do databases.append(node.schema) -%}{%- endif -%}
            {%- endfor -%}
            {%- for database in databases -%}
                {%- do run_query('drop database if exists ' ~ database ~ ' cascade') -%}
                {%- do run_query(
                    'create database ' ~ database ~ " location '" ~ stage ~ '/' ~ database ~ ".db'"
                ) -%}
            {%- endfor -%}
        {%- endif -%}
        {%- do run_query('create database if not exists raw') -%}
        {%- set seen = [] -%}
        {%- for source in graph.sources.values() if source.schema == 'raw' -%}
            {%- if source.identifier not in seen -%}
                {%- do seen.append(source.identifier) -%}
                {%- do run_query('drop table if exists raw.' ~ source.identifier) -%}
                {%- do run_query(
                    'create table raw.' ~ source.identifier ~ ' using parquet location '
                    ~ "'" ~ root ~ '/' ~ source.identifier ~ "'"
                ) -%}
            {%- endif -%}
        {%- endfor -%}
        {#- marts-from-duckdb (csrwh/pipeline/spark.py): a DuckDB warehouse's seed, staging and
            intermediate tables as Parquet, under $CSRWH_SPARK_UPSTREAM_DIR/<schema>/<table> -#}
        {%- set upstream = fromjson(env_var('CSRWH_SPARK_UPSTREAM', '{}')) -%}
        {%- for schema, tables in upstream.items() -%}
            {%- do run_query('create database if not exists ' ~ schema) -%}
            {%- for table in tables -%}
                {%- do run_query(
                    'create table ' ~ schema ~ '.' ~ table ~ ' using parquet location '
                    ~ "'" ~ env_var('CSRWH_SPARK_UPSTREAM_DIR') ~ '/' ~ schema ~ '/' ~ table ~ "'"
                ) -%}
            {%- endfor -%}
        {%- endfor -%}
    {%- endif -%}
{% endmacro %}
