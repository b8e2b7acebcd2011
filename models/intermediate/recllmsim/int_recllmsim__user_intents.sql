{#-
    RecLLMSim user-message intents, one row per label. LLM-agent files label each user
    message with one English string (scheme recllmsim_intent, given by the user simulator
    LLM); real-human files with a list of Chinese labels (scheme recllmsim_intent_zh, given
    by the human user), which become one row per label.
-#}

with

messages as (

    select * from {{ ref('stg_recllmsim__messages') }}

),

user_messages as (

    select
        conversation_id,
        message_index,
        intent
    from messages
    where role = 'user'
        and {{ json_type_of('intent') }} in ('VARCHAR', 'ARRAY')

),

string_labels as (

    select
        conversation_id,
        message_index,
        'recllmsim_intent' as label_scheme,
        'llm' as source,
        {{ json_text('intent') }} as raw_label,
        0 as label_position
    from user_messages
    where {{ json_type_of('intent') }} = 'VARCHAR'

),

list_labels as (

    select
        user_messages.conversation_id,
        user_messages.message_index,
        'recllmsim_intent_zh' as label_scheme,
        'human' as source,
        labels.label as raw_label,
        labels.label_number - 1 as label_position
    from user_messages
    {{ unnest_join(json_to_text_array('user_messages.intent'), 'labels', 'label', 'label_number') }}
    where {{ json_type_of('user_messages.intent') }} = 'ARRAY'

),

unioned as (

    select * from string_labels
    union all
    select * from list_labels

),

final as (

    select
        ----------  ids
        conversation_id,

        ----------  strings
        label_scheme,
        raw_label,
        source,

        ----------  numerics
        cast(message_index as integer) as message_index,
        -- 0-based position of the label in the message's list (0 for a single label)
        cast(label_position as integer) as label_position

    from unioned

)

select * from final
