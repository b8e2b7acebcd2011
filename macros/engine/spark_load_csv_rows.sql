{#-
    Seeds on Spark: dbt-spark's session method pastes each value between single quotes
    without escaping (`'User reveals a need inspired by the agent's answer'` breaks), and with
    spark.sql.parser.escapedStringLiterals a backslash cannot escape it. Here every value is
    written as a literal: text between single quotes, a single quote as "'" joined with concat
    (the profile keeps double quotes for strings), NULL for empty cells, numbers and booleans
    as they are. Overrides dbt-spark's own spark__load_csv_rows (root-project macros come first
    in the dbt namespace); DuckDB's seeds are untouched.
-#}
{% macro spark__load_csv_rows(model, agate_table) %}
    {%- set column_override = model['config'].get('column_types', {}) -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set sql -%}
            insert into {{ this.render() }} values
            {% for row in chunk -%}
                ({%- for col_name in agate_table.column_names -%}
                    {%- set type = column_override.get(col_name, adapter.convert_type(agate_table, loop.index0)) -%}
                    cast({{ spark_seed_literal(row[loop.index0]) }} as {{ type }})
                    {%- if not loop.last %}, {% endif -%}
                {%- endfor -%})
                {%- if not loop.last %},{% endif %}
            {% endfor -%}
        {%- endset -%}
        {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
        {%- if loop.index0 == 0 -%}{%- do statements.append(sql) -%}{%- endif -%}
    {%- endfor -%}
    {{ return(statements[0] if statements else '') }}
{% endmacro %}

{% macro spark_seed_literal(value) -%}
    {%- if value is none -%}
        null
    {%- elif value is sameas true or value is sameas false -%}
        {{ 'true' if value else 'false' }}
    {%- elif value is number -%}
        {{ value }}
    {%- else -%}
        {%- set parts = (value | string).split("'") -%}
        {%- if parts | length == 1 -%}
            '{{ parts[0] }}'
        {%- else -%}
            concat({% for part in parts %}'{{ part }}'{% if not loop.last %}, "'", {% endif %}{% endfor %})
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}
