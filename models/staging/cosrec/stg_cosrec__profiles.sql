with

source as (

    select * from {{ source('cosrec', 'profiles') }}

),

{{ cosrec_user_entries('profile_summary') }},

renamed as (

    select
        ----------  ids
        conversation_user_id,
        conversation_id,
        source_user_id,

        ----------  strings
        partition_name,
        {{ json_text('profile_summary') }} as profile_summary

    from per_user

)

select * from renamed
