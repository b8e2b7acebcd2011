{#- Published from `int_crsarena__votes` with its columns listed explicitly; see the yml. -#}

with

votes as (
    select * from {{ ref('int_crsarena__votes') }}
),

final as (
    select
        vote_id,
        environment,
        voted_at,
        user_id,
        system_a,
        system_b,
        winner,
        feedback,
        is_duplicate,
        conversation_id_a,
        conversation_id_b,
        vote_order
    from votes
)

select * from final
