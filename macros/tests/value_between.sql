{#- Generic test: non-null `column_name` lies within [min_value, max_value] (inclusive). -#}
{% test value_between(model, column_name, min_value, max_value) %}
    select {{ column_name }}
    from {{ model }}
    where {{ column_name }} is not null
        and ({{ column_name }} < {{ min_value }} or {{ column_name }} > {{ max_value }})
{% endtest %}
