-- Every CoSRec intent label (crowd and curated) sits on a user turn.

with

intents as (
    select * from {{ ref('int_cosrec__intents_conformed') }}
),

turns as (
    select * from {{ ref('int_cosrec__turns_conformed') }}
)

select
    intents.conversation_id,
    intents.turn_index,
    intents.annotator,
    turns.role
from intents
left join turns
    on intents.conversation_id = turns.conversation_id
    and intents.turn_index = turns.turn_index
where turns.role is distinct from 'user'
