{#- Conversation-level rating means by number of user turns, per corpus and aspect. -#}

with

ratings as (
    select * from {{ ref('ratings') }}
),

conversations as (
    select * from {{ ref('conversations') }}
),

conversation_ratings as (
    select
        ratings.corpus,
        ratings.aspect,
        conversations.n_user_turns,
        ratings.conversation_id,
        ratings.value,
        ratings.value_normalized
    from ratings
    inner join conversations
        on ratings.conversation_id = conversations.conversation_id
    where ratings.turn_index is null
        and ratings.item_id is null
),

final as (
    select
        -- strings
        corpus,
        aspect,
        -- numerics
        n_user_turns,
        cast(count(distinct conversation_id) as integer) as n_conversations,
        cast(count(*) as integer) as n_ratings,
        avg(value) as mean_value,
        avg(value_normalized) as mean_value_normalized
    from conversation_ratings
    group by corpus, aspect, n_user_turns
)

select * from final
