-- Every RecLLMSim intent label sits on a user turn.

with

intents as (
    select * from {{ ref('int_recllmsim__intents_conformed') }}
),

turns as (
    select * from {{ ref('int_recllmsim__turns_conformed') }}
)

select
    intents.conversation_id,
    intents.turn_index,
    turns.role
from intents
left join turns
    on intents.conversation_id = turns.conversation_id
    and intents.turn_index = turns.turn_index
where turns.role is distinct from 'user'
