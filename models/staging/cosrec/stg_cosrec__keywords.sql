with

source as (

    select * from {{ source('cosrec', 'keywords') }}

),

unnested as (

    select
        source.record_key as conversation_id,
        source.source_path,
        user_keywords.entry.key as source_user_id,
        user_keywords.entry.value as keywords
    from source
    {{ unnest_join(parse_json_object_entries(cosrec_keyed_value('source.payload')), 'user_keywords', 'entry') }}

),

renamed as (

    select
        ----------  ids
        conversation_id || '#' || source_user_id as conversation_user_id,
        conversation_id,
        source_user_id,

        ----------  strings
        regexp_extract(source_path, '^dataset/([^/]+)/', 1) as partition_name,
        {{ json_to_text_array('keywords') }} as keywords,

        ----------  numerics
        cast({{ json_array_length_at('keywords') }} as integer) as n_keywords

    from unnested

)

select * from renamed
