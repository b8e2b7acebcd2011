{#-
    Generic test: none of `columns` is NULL. One query (one dbt node) per model instead of one
    per column keeps `dbt build` fast; the offending rows come back whole, with the NULL columns
    named in `null_columns`.
-#}
{% test not_null_columns(model, columns) %}
    with

    checked as (
        select * from {{ model }}
    )

    select
        concat_ws(', '
            {%- for column in columns %},
            case when {{ column }} is null then '{{ column }}' end
            {%- endfor %}
        ) as null_columns,
        checked.*
    from checked
    where {% for column in columns %}{{ column }} is null{{ " or " if not loop.last }}{% endfor %}
{% endtest %}
