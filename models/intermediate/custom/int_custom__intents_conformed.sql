{#-
    Custom per-message labels in the conformed intents contract: one row per label of a user or
    assistant message, scheme 'custom:<name>'. The intents mart maps them to a family through
    the intent_taxonomy seed ('unmapped' unless it has rows for that scheme).
-#}

with

turns as (

    select * from {{ ref('int_custom__turns') }}

),

labels as (

    select
        turns.conversation_id,
        turns.turn_index,
        turns.corpus_name,
        turns.label_source,
        labelled.label
    from turns
    cross join unnest({{ json_to_array('turns.labels') }}) as labelled (label)

),

conformed as (

    select
        cast(conversation_id as varchar) as conversation_id,
        cast(turn_index as integer) as turn_index,
        -- whoever made the corpus; corpus.json's label_source says whether a human or an LLM
        cast('author' as varchar) as annotator,
        cast('custom:' || corpus_name as varchar) as label_scheme,
        cast({{ json_text('label') }} as varchar) as raw_label,
        -- labels are not ranked: every label is a primary label
        cast(true as boolean) as is_primary,
        cast(null as varchar) as standalone_query,
        cast(null as varchar) as intent_id,
        cast(label_source as varchar) as source
    from labels

)

select * from conformed
