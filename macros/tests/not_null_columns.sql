{#-
    Generic test: none of `columns` is NULL. One query (one dbt node) per model instead of one
    per column keeps `dbt build` fast; the offending rows come back with the NULL columns named.
-#}
{% test not_null_columns(model, columns) %}
    with

    checked as (
        select * from {{ model }}
    )

    select
        {%- for column in columns %}
        {{ column }},
        {%- endfor %}
        concat_ws(', '
            {%- for column in columns %},
            case when {{ column }} is null then '{{ column }}' end
            {%- endfor %}
        ) as null_columns
    from checked
    where {% for column in columns %}{{ column }} is null{{ " or " if not loop.last }}{% endfor %}
{% endtest %}
