{#-
    CRSArena-Dial: the vote result of every dialogue as the upstream merge tool (tool/merge.py)
    derives it. A dialogue's votes are the votes of its environment by the same user with the
    dialogue's CRS as crs1 or crs2, after dropping later copies of a vote (same user, crs1,
    crs2 and vote: `votes.is_duplicate`).
-#}

with

conversations as (
    select * from {{ ref('conversations') }}
    where corpus = 'crsarena'
),

votes as (
    select * from {{ ref('votes') }}
    where not is_duplicate
),

matched as (
    select
        conversations.conversation_id,
        votes.vote_id,
        case
            when votes.winner = 'tie' then 'tie'
            when votes.winner = 'a' and votes.system_a = conversations.system_id then 'win'
            when votes.winner = 'b' and votes.system_b = conversations.system_id then 'win'
            else 'lose'
        end as result,
        case
            when votes.system_a = conversations.system_id then votes.system_b
            else votes.system_a
        end as opponent_system_id
    from conversations
    inner join votes
        on conversations.subset = votes.environment
        and conversations.user_id = votes.user_id
        and (votes.system_a = conversations.system_id or votes.system_b = conversations.system_id)
),

per_dialogue as (
    select
        conversation_id,
        count(*) as n_votes,
        min(vote_id) as vote_id,
        min(result) as result,
        min(opponent_system_id) as opponent_system_id
    from matched
    group by conversation_id
),

final as (
    select
        -- ids
        conversations.conversation_id,
        -- strings
        conversations.subset as environment,
        conversations.system_id,
        conversations.user_id,
        case when per_dialogue.n_votes = 1 then per_dialogue.vote_id end as vote_id,
        case when per_dialogue.n_votes = 1 then per_dialogue.opponent_system_id end as opponent_system_id,
        case
            when per_dialogue.n_votes is null then 'no_vote'
            when per_dialogue.n_votes > 1 then 'ambiguous'
            else per_dialogue.result
        end as vote_result,
        -- numerics
        cast(coalesce(per_dialogue.n_votes, 0) as integer) as n_votes
    from conversations
    left join per_dialogue
        on conversations.conversation_id = per_dialogue.conversation_id
)

select * from final
