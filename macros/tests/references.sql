{#-
    Generic test (relationships family): every non-null reference of `references` exists in its
    parent. Each reference is `{column, to, field}` (one column) or `{columns, to, to_columns}`
    (a compound key; `to_columns` defaults to the same names). One query (one dbt node) per
    model instead of one per reference; one row per missing parent key, naming the columns,
    the parent, the key value and how many rows point at it.
-#}
{% test references(model, references) %}
    with

    child as (
        select * from {{ model }}
    )

    {% for reference in references %}
    {%- set columns = reference.columns if reference.columns else [reference.column] %}
    {%- set parent_columns = reference.to_columns if reference.to_columns else ([reference.field] if reference.field else columns) %}
    select
        '{{ columns | join(", ") }}' as column_name,
        '{{ reference.to }}' as parent,
        concat_ws(' | ', {% for column in columns %}cast(child.{{ column }} as {{ dbt.type_string() }}){{ ", " if not loop.last }}{% endfor %}) as missing_key,
        count(*) as n_rows
    from child
    where {% for column in columns %}child.{{ column }} is not null{{ " and " if not loop.last }}{% endfor %}
        and not exists (
            select 1
            from {{ reference.to }} as parent
            where {% for column in columns %}parent.{{ parent_columns[loop.index0] }} = child.{{ column }}{{ " and " if not loop.last }}{% endfor %}
        )
    group by all
    {{ "union all" if not loop.last }}
    {% endfor %}
{% endtest %}
