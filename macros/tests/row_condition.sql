{#-
    Generic test: every row satisfies `condition` (a SQL boolean expression over the model's
    columns); a row where it is false or NULL fails. For invariants between columns, e.g.
    `n_wins_a + n_wins_b + n_ties <= n_battles`.
-#}
{% test row_condition(model, condition) %}
    select *
    from {{ model }}
    where not coalesce({{ condition }}, false)
{% endtest %}
