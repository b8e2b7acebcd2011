with

source as (

    select * from {{ source('cosrec', 'profiles') }}

),

unnested as (

    select
        source.record_key as conversation_id,
        source.source_path,
        user_profiles.entry.key as source_user_id,
        user_profiles.entry.value as profile_summary
    from source
    {{ unnest_join(parse_json_object_entries(cosrec_keyed_value('source.payload')), 'user_profiles', 'entry') }}

),

renamed as (

    select
        ----------  ids
        conversation_id || '#' || source_user_id as conversation_user_id,
        conversation_id,
        source_user_id,

        ----------  strings
        regexp_extract(source_path, '^dataset/([^/]+)/', 1) as partition_name,
        {{ json_text('profile_summary') }} as profile_summary

    from unnested

)

select * from renamed
