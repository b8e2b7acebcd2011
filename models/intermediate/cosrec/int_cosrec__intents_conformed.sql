{#-
    CoSRec intent labels in the conformed contract (docs/ARCHITECTURE.md): every crowd
    annotator's labels (crowd partition) and the reviewed intents (curated partition), placed
    on the global turn index of the user utterance they annotate.
-#}

with

intent_annotations as (

    select * from {{ ref('stg_cosrec__intent_annotations') }}

),

intents as (

    select * from {{ ref('stg_cosrec__intents') }}

),

turns_split as (

    select * from {{ ref('int_cosrec__turns_split') }}

),

user_turns as (

    select
        conversation_id,
        user_turn_index,
        turn_index
    from turns_split
    where role = 'user'

),

crowd_labels as (

    -- distinct: a few annotators gave the very same label (type and query) twice
    select distinct
        intent_annotations.conversation_id,
        user_turns.turn_index,
        'crowd_' || intent_annotations.annotator_index as annotator,
        intent_annotations.intent_type as raw_label,
        intent_annotations.standalone_query,
        cast(null as string) as intent_id
    from intent_annotations
    left join user_turns
        on intent_annotations.conversation_id = user_turns.conversation_id
        and intent_annotations.user_utterance_index = user_turns.user_turn_index

),

curated_labels as (

    select
        intents.conversation_id,
        user_turns.turn_index,
        'curated' as annotator,
        intents.intent_type as raw_label,
        -- the canonical (longest) stand-alone formulation
        intents.canonical_query as standalone_query,
        {{ global_id('cosrec', 'intents.intent_id') }} as intent_id
    from intents
    left join user_turns
        on intents.conversation_id = user_turns.conversation_id
        and intents.user_utterance_index = user_turns.user_turn_index

),

unioned as (

    select * from crowd_labels
    union all
    select * from curated_labels

),

final as (

    select
        cast({{ global_id('cosrec', 'conversation_id') }} as string) as conversation_id,
        cast(turn_index as integer) as turn_index,
        cast(annotator as string) as annotator,
        cast('cosrec_intent' as string) as label_scheme,
        cast(raw_label as string) as raw_label,
        cast(true as boolean) as is_primary,
        cast(standalone_query as string) as standalone_query,
        cast(intent_id as string) as intent_id,
        cast('human' as string) as source
    from unioned

)

select * from final
