{#-
    Generic test (keys family): each key of `keys` is unique. A key is a column name (NULLs are
    not checked, as dbt's `unique`) or a list of columns (a compound key; NULLs count as a value,
    so two rows with the same NULL combination are duplicates). One query (one dbt node) per
    model instead of one per key; every duplicated key value comes back once, with the key named
    (`key_columns`), its value (`key_value`, the columns joined with ' | ') and how many rows
    share it (and `example_record`, the file and record of one of them, where the model carries
    them: `record_location`).
-#}
{% test unique_keys(model, keys) %}
    {%- set location = record_location(model) %}
    with

    checked as (
        select * from {{ model }}
    )

    {% for key in keys %}
    {%- set columns = [key] if key is string else key %}
    select
        '{{ columns | join(", ") }}' as key_columns,
        concat_ws(' | ', {% for column in columns %}cast({{ column }} as {{ dbt.type_string() }}){{ ", " if not loop.last }}{% endfor %}) as key_value,
        count(*) as n_rows
        {%- if location %},
        min({{ location }}) as example_record
        {%- endif %}
    from checked
    {%- if key is string %}
    where {{ key }} is not null
    {%- endif %}
    group by {% for column in columns %}{{ column }}{{ ", " if not loop.last }}{% endfor %}
    having count(*) > 1
    {{ "union all" if not loop.last }}
    {% endfor %}
{% endtest %}
