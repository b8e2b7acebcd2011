{#-
    Generic test: every row's `columns` combination exists in `to` (a compound-key
    relationships test). `to_columns` defaults to the same names.
-#}
{% test exists_in(model, columns, to, to_columns=none) %}
    {%- set target_columns = to_columns if to_columns else columns %}
    with

    child as (
        select * from {{ model }}
    )

    select child.*
    from child
    left join {{ to }} as parent
        on {% for c in columns %}child.{{ c }} = parent.{{ target_columns[loop.index0] }}{{ " and " if not loop.last }}{% endfor %}
    where {% for c in columns %}child.{{ c }} is not null{{ " and " if not loop.last }}{% endfor %}
        and parent.{{ target_columns[0] }} is null
{% endtest %}
