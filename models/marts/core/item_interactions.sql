{#- Published from `int_recoreact__item_interactions` with its columns listed explicitly; see the yml. -#}

with

item_interactions as (
    select * from {{ ref('int_recoreact__item_interactions') }}
),

final as (
    select
        interaction_id,
        conversation_id,
        user_id,
        item_id,
        domain,
        round,
        selection_step,
        request_text,
        rating
    from item_interactions
)

select * from final
