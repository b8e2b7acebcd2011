-- Links each vote to the two dialogues of its battle, as the upstream merge tool does:
-- by (user_id, agent id) within the same environment. NULL when a dialogue is missing.

with

votes as (

    select * from {{ ref('int_crsarena__votes_deduplicated') }}

),

dialogues as (

    select * from {{ ref('stg_crsarena__dialogues') }}

),

linked as (

    select
        ----------  ids
        votes.session_id,
        votes.user_id,
        crs1_dialogues.dialogue_id as crs1_dialogue_id,
        crs2_dialogues.dialogue_id as crs2_dialogue_id,

        ----------  strings
        votes.environment,
        votes.crs1,
        votes.crs2,
        votes.vote,
        votes.feedback,

        ----------  numerics
        votes.record_index,
        votes.vote_order,

        ----------  booleans
        votes.is_duplicate,

        ----------  timestamps
        votes.voted_at

    from votes
    left join dialogues as crs1_dialogues
        on votes.environment = crs1_dialogues.environment
        and votes.user_id = crs1_dialogues.user_id
        and votes.crs1 = crs1_dialogues.agent_id
    left join dialogues as crs2_dialogues
        on votes.environment = crs2_dialogues.environment
        and votes.user_id = crs2_dialogues.user_id
        and votes.crs2 = crs2_dialogues.agent_id

)

select * from linked
