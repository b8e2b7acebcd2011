-- User-intent labels sit on user turns and agent-action labels on agent (system) turns.
select
    intents.conversation_id,
    intents.turn_index,
    intents.label_scheme,
    turns.role
from {{ ref('int_convsearch__intents_conformed') }} as intents
inner join {{ ref('int_convsearch__turns_conformed') }} as turns
    on intents.conversation_id = turns.conversation_id
    and intents.turn_index = turns.turn_index
where (intents.label_scheme = 'convsearch_user_intent' and turns.role != 'user')
    or (intents.label_scheme = 'convsearch_agent_action' and turns.role != 'system')
