{#-
    Generic test: a model's not-null, keys, ranges and closed-vocabulary rules in one query
    (one dbt node) instead of one node per family. Each argument takes what that family's own
    test takes (`not_null_columns`: columns, `unique_keys`: keys, `value_ranges`: ranges,
    `accepted_values_by_column`: values) and runs that family's SQL (macros/tests/<family>.sql,
    the one home of each rule); one row per offending (rule, detail): the family, what it found
    (the NULL columns; the key and its duplicated value; the out-of-range columns; the column
    and its unexpected value) and how many rows; where the model carries its rows' file and record
    (`record_location`), `example_record` names one offending row's.
-#}
{% test model_rules(
    model,
    not_null_columns=none,
    unique_keys=none,
    value_ranges=none,
    accepted_values_by_column=none
) %}
    {%- set location = record_location(model) %}
    {#- one offending row's file and record: of the rows (whole rows), or as the family gives it #}
    {%- set of_rows = (", min(" ~ location ~ ") as example_record") if location else "" %}
    {%- set as_given = ", example_record" if location else "" %}
    {%- set parts = [] %}
    {%- if not_null_columns %}
        {%- do parts.append(
            "select 'not_null_columns' as rule, null_columns as detail, count(*) as n_rows" ~ of_rows
            ~ " from (" ~ test_not_null_columns(model, not_null_columns) ~ ") as found group by null_columns"
        ) %}
    {%- endif %}
    {%- if unique_keys %}
        {%- do parts.append(
            "select 'unique_keys' as rule, key_columns || ' = ' || coalesce(key_value, 'NULL') as detail,"
            ~ " n_rows" ~ as_given ~ " from (" ~ test_unique_keys(model, unique_keys) ~ ") as found"
        ) %}
    {%- endif %}
    {%- if value_ranges %}
        {%- do parts.append(
            "select 'value_ranges' as rule, out_of_range_columns as detail, count(*) as n_rows" ~ of_rows
            ~ " from (" ~ test_value_ranges(model, value_ranges) ~ ") as found group by out_of_range_columns"
        ) %}
    {%- endif %}
    {%- if accepted_values_by_column %}
        {%- do parts.append(
            "select 'accepted_values_by_column' as rule, column_name || ' = ' || unexpected_value as detail,"
            ~ " n_rows" ~ as_given ~ " from ("
            ~ test_accepted_values_by_column(model, accepted_values_by_column) ~ ") as found"
        ) %}
    {%- endif %}
    {%- if not parts %}
        {{ exceptions.raise_compiler_error("model_rules on " ~ model ~ ": no rule given") }}
    {%- endif %}
    {{ parts | join("\n    union all\n    ") }}
{% endtest %}
