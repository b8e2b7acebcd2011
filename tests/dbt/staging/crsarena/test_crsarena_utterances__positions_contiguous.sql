-- Utterance positions run 0..n-1 in every dialogue, matching the dialogue's array length.
select
    dialogues.dialogue_id,
    dialogues.n_utterances,
    count(utterances.utterance_id) as n_rows,
    max(utterances.utterance_position) as max_position
from {{ ref('stg_crsarena__dialogues') }} as dialogues
left join {{ ref('stg_crsarena__utterances') }} as utterances
    on dialogues.dialogue_id = utterances.dialogue_id
group by dialogues.dialogue_id, dialogues.n_utterances
having count(utterances.utterance_id) != dialogues.n_utterances
    or coalesce(max(utterances.utterance_position), -1) != dialogues.n_utterances - 1
