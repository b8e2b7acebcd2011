-- Every CoSRec relevance judgment points at the user turn that states its intent.

with

judgments as (
    select * from {{ ref('int_cosrec__relevance_judgments') }}
),

turns as (
    select * from {{ ref('int_cosrec__turns_conformed') }}
)

select
    judgments.judgment_id,
    judgments.conversation_id,
    judgments.turn_index,
    turns.role
from judgments
left join turns
    on judgments.conversation_id = turns.conversation_id
    and judgments.turn_index = turns.turn_index
where turns.role is distinct from 'user'
