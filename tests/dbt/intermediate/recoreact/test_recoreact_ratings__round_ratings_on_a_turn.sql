-- Round-level ratings (rating*, good_*) must sit on a turn; survey answers must not.
-- (escape '!': Spark's lexer reads '\' as an unterminated literal.)
select
    conversation_id,
    turn_index,
    aspect
from {{ ref('int_recoreact__ratings_conformed') }}
where (aspect like 'rating%' or aspect like 'good!_%' escape '!')
    and turn_index is null
    or aspect in ('personalized', 'explore', 'task_clear', 'task_difficult', 'dialogue_helpful', 'recs_satisfied', 'demand')
    and turn_index is not null
