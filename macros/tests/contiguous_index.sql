{#-
    Generic test: within each group of `partition_by`, `column_name` runs 0, 1, ..., n-1
    with no gap and no duplicate. Returns the offending groups.
-#}
{% test contiguous_index(model, column_name, partition_by) %}
    select
        {{ partition_by }},
        min({{ column_name }}) as min_index,
        max({{ column_name }}) as max_index,
        count(*) as n_rows,
        count(distinct {{ column_name }}) as n_distinct
    from {{ model }}
    group by {{ partition_by }}
    having
        min({{ column_name }}) <> 0
        or max({{ column_name }}) <> count(*) - 1
        or count(distinct {{ column_name }}) <> count(*)
{% endtest %}
