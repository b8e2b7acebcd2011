{#-
    Generic test: every row's (conversation_id, turn_index) is a turn of `turns` spoken by
    `role` (e.g. every CoSRec intent sits on a user turn). Rows with a NULL turn_index
    (conversation-level facts) are not checked. Returns the offending rows.
-#}
{% test on_turns_with_role(model, turns, role) %}
    with

    labelled as (
        select * from {{ model }}
    )

    select
        labelled.conversation_id,
        labelled.turn_index,
        turn_roles.role as actual_role
    from labelled
    left join {{ turns }} as turn_roles
        on labelled.conversation_id = turn_roles.conversation_id
        and labelled.turn_index = turn_roles.turn_index
    where labelled.turn_index is not null
        and turn_roles.role is distinct from '{{ role }}'
{% endtest %}
