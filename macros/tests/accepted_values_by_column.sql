{#-
    Generic test (vocabularies family, closed): every non-null value of each column of `values`
    ({column: [value, ...]}) is one of the listed values (strings are compared as text, numbers
    as numbers). One query (one dbt node) per model instead of one per column; one row per
    unexpected value, naming the column, the value and how many rows carry it (and
    `example_record`, the file and record of one of them, where the model carries them:
    `record_location`).
-#}
{% test accepted_values_by_column(model, values) %}
    {%- set location = record_location(model) %}
    with

    checked as (
        select * from {{ model }}
    )

    {% for column, accepted in values.items() %}
    select
        '{{ column }}' as column_name,
        cast({{ column }} as {{ dbt.type_string() }}) as unexpected_value,
        count(*) as n_rows
        {%- if location %},
        min({{ location }}) as example_record
        {%- endif %}
    from checked
    where {{ column }} is not null
        and {{ column }} not in (
            {%- for value in accepted -%}
            {%- if value is string %}'{{ value | replace("'", "''") }}'{% else %}{{ value }}{% endif %}{{ ", " if not loop.last }}
            {%- endfor -%}
        )
    group by {{ column }}
    {{ "union all" if not loop.last }}
    {% endfor %}
{% endtest %}
