-- Every turn-level RecLLMSim rating (hallucination, satisfaction) judges a system (assistant)
-- turn, and only those two aspects are turn level.

with

ratings as (
    select * from {{ ref('int_recllmsim__ratings_conformed') }}
),

turns as (
    select * from {{ ref('int_recllmsim__turns_conformed') }}
)

select
    ratings.conversation_id,
    ratings.turn_index,
    ratings.aspect,
    turns.role
from ratings
left join turns
    on ratings.conversation_id = turns.conversation_id
    and ratings.turn_index = turns.turn_index
where (ratings.turn_index is not null or ratings.aspect in ('hallucination', 'satisfaction'))
    and (
        turns.role is distinct from 'system'
        or ratings.aspect not in ('hallucination', 'satisfaction')
    )
