{#-
    Custom per-message labels in the conformed intents contract: one row per label of a user or
    assistant message -- its `labels` (annotator 'author', every label primary) and the intents
    of its `turn_annotations` element (as `csrwh export` writes them: annotator and is_primary
    as given) -- scheme 'custom:<name>'. The intents mart maps them to a family through the
    intent_taxonomy seed ('unmapped' unless it has rows for that scheme).
-#}

with

turns as (

    select * from {{ ref('int_custom__turns') }}

),

message_labels as (

    select
        turns.conversation_id,
        turns.turn_index,
        turns.corpus_name,
        turns.label_source,
        cast('author' as string) as annotator,
        {{ json_text('labelled.label') }} as raw_label,
        true as is_primary
    from turns
    {{ unnest_join(json_to_array('turns.labels'), 'labelled', 'label') }}

),

annotation_labels as (

    select
        turns.conversation_id,
        turns.turn_index,
        turns.corpus_name,
        turns.label_source,
        coalesce(annotated.intent.annotator, 'author') as annotator,
        annotated.intent.label as raw_label,
        coalesce(annotated.intent.is_primary, true) as is_primary
    from turns
    {{ unnest_join('turns.annotation_intents', 'annotated', 'intent') }}

),

labels as (

    select * from message_labels
    union all
    select * from annotation_labels

),

conformed as (

    select
        cast(conversation_id as string) as conversation_id,
        cast(turn_index as integer) as turn_index,
        -- whoever made the corpus ('author'), or the annotator an exported record names;
        -- corpus.json's label_source says whether a human or an LLM
        cast(annotator as string) as annotator,
        cast('custom:' || corpus_name as string) as label_scheme,
        cast(raw_label as string) as raw_label,
        cast(is_primary as boolean) as is_primary,
        cast(null as string) as standalone_query,
        cast(null as string) as intent_id,
        cast(label_source as string) as source
    from labels

)

select * from conformed
