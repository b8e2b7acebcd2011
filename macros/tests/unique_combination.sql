{#- Generic test: the combination of `columns` is unique (a compound key). -#}
{% test unique_combination(model, columns) %}
    select
        {{ columns | join(", ") }},
        count(*) as n_rows
    from {{ model }}
    group by {{ columns | join(", ") }}
    having count(*) > 1
{% endtest %}
