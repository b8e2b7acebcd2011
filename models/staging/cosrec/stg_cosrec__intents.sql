with

source as (

    select * from {{ source('cosrec', 'intents') }}

),

utterances as (

    select
        source.record_key as conversation_id,
        source.source_path,
        utterance_intents.utterance
    from source
    {{ unnest_join(json_list(cosrec_keyed_value('source.payload')), 'utterance_intents', 'utterance') }}

),

intents as (

    select
        utterances.conversation_id,
        utterances.source_path,
        utterances.utterance,
        utterance_intent.intent,
        utterance_intent.intent_number,
        {{ json_to_text_array(json_get('utterance_intent.intent', '$.query_variants')) }} as query_variants
    from utterances
    {{ unnest_join(
        json_list('utterances.utterance', '$.intents'), 'utterance_intent', 'intent', 'intent_number'
    ) }}

),

renamed as (

    select
        ----------  ids
        {{ json_text('intent', '$.id') }} as intent_id,
        conversation_id,
        -- ASIN of the product a product_details intent is about (absent otherwise)
        {{ json_text('intent', '$.product') }} as product_id,

        ----------  strings
        regexp_extract(source_path, '^dataset/([^/]+)/', 1) as partition_name,
        {{ json_text('intent', '$.type') }} as intent_type,
        -- canonical formulation = the longest variant (the first one on a tie), per the README
        {{ longest_text('query_variants') }} as canonical_query,
        query_variants,

        ----------  numerics
        -- index of the USER utterance (0-based, counting only "U:" lines)
        cast({{ json_text('utterance', '$.utterance') }} as integer) as user_utterance_index,
        -- 0-based position of the intent within its utterance
        cast(intent_number - 1 as integer) as intent_position,
        cast({{ array_size('query_variants') }} as integer) as n_query_variants

    from intents

)

select * from renamed
