{#-
    Generic test (ranges family): every non-null value of each column of `ranges`
    ({column: [min_value, max_value]}, inclusive bounds) lies within its range. One query (one
    dbt node) per model instead of one per column; the offending rows come back whole, with the
    out-of-range columns named in `out_of_range_columns`.
-#}
{% test value_ranges(model, ranges) %}
    {%- set columns = ranges.keys() | list %}
    with

    checked as (
        select * from {{ model }}
    ),

    flagged as (
        select
            concat_ws(', '
                {%- for column in columns %}
                {%- set bounds = ranges[column] %},
                case when {{ column }} < {{ bounds[0] }} or {{ column }} > {{ bounds[1] }} then '{{ column }} not in [{{ bounds[0] }}, {{ bounds[1] }}]' end
                {%- endfor %}
            ) as out_of_range_columns,
            checked.*
        from checked
    )

    select *
    from flagged
    where out_of_range_columns <> ''
{% endtest %}
