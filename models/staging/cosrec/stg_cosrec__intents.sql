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
    cross join
        unnest(cast({{ cosrec_keyed_value('source.payload') }} as json[]))
        as utterance_intents (utterance)

),

intents as (

    select
        utterances.conversation_id,
        utterances.source_path,
        utterances.utterance,
        utterance_intent.intent,
        utterance_intent.intent_number,
        cast(utterance_intent.intent -> '$.query_variants' as varchar[]) as query_variants
    from utterances
    cross join
        unnest(cast(utterances.utterance -> '$.intents' as json[]))
        with ordinality as utterance_intent (intent, intent_number)

),

renamed as (

    select
        ----------  ids
        intent ->> '$.id' as intent_id,
        conversation_id,
        -- ASIN of the product a product_details intent is about (absent otherwise)
        intent ->> '$.product' as product_id,

        ----------  strings
        regexp_extract(source_path, '^dataset/([^/]+)/', 1) as partition_name,
        intent ->> '$.type' as intent_type,
        -- canonical formulation = the longest variant (the first one on a tie), per the README
        list_reduce(
            query_variants,
            lambda longest, variant: case
                when length(variant) > length(longest) then variant else longest
            end
        ) as canonical_query,
        query_variants,

        ----------  numerics
        -- index of the USER utterance (0-based, counting only "U:" lines)
        cast(utterance ->> '$.utterance' as integer) as user_utterance_index,
        -- 0-based position of the intent within its utterance
        cast(intent_number - 1 as integer) as intent_position,
        cast(len(query_variants) as integer) as n_query_variants

    from intents

)

select * from renamed
