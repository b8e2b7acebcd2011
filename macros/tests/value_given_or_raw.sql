{#- Generic test (closed rule): `value_column` is NULL only where `raw_column` keeps the answer it could not score. -#}
{% test value_given_or_raw(model, value_column, raw_column) %}
    select *
    from {{ model }}
    where {{ value_column }} is null
        and {{ raw_column }} is null
{% endtest %}
