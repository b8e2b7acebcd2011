with

source as (

    select * from {{ source('cosrec', 'intent_annotations') }}

),

utterances as (

    select
        source.record_key as conversation_id,
        source.source_path,
        utterance_annotations.utterance
    from source
    {{ unnest_join(json_list(cosrec_keyed_value('source.payload')), 'utterance_annotations', 'utterance') }}

),

annotators as (

    select
        utterances.conversation_id,
        utterances.source_path,
        utterances.utterance,
        annotator_labels.labels,
        annotator_labels.annotator_number
    from utterances
    {{ unnest_join(
        json_list('utterances.utterance', '$.intent_annotations'),
        'annotator_labels', 'labels', 'annotator_number'
    ) }}

),

labels as (

    select
        annotators.conversation_id,
        annotators.source_path,
        annotators.utterance,
        annotators.annotator_number,
        annotator_label.label,
        annotator_label.label_number
    from annotators
    -- an annotator who saw no intent in the utterance gave an empty list: no row
    {{ unnest_join(json_list('annotators.labels'), 'annotator_label', 'label', 'label_number') }}

),

renamed as (

    select
        ----------  ids
        conversation_id
        || '#' || {{ json_text('utterance', '$.utterance') }}
        || '#' || (annotator_number - 1)
        || '#' || (label_number - 1) as intent_annotation_id,
        conversation_id,

        ----------  strings
        regexp_extract(source_path, '^dataset/([^/]+)/', 1) as partition_name,
        {{ json_text('label', '$.type') }} as intent_type,
        {{ json_text('label', '$.query') }} as standalone_query,

        ----------  numerics
        -- index of the USER utterance (0-based, counting only "U:" lines)
        cast({{ json_text('utterance', '$.utterance') }} as integer) as user_utterance_index,
        -- 0-based position of the annotator in the utterance's list of annotations
        cast(annotator_number - 1 as integer) as annotator_index,
        -- 0-based position of the label in the annotator's list
        cast(label_number - 1 as integer) as label_position

    from labels

)

select * from renamed
