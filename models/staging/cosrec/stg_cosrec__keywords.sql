with

source as (

    select * from {{ source('cosrec', 'keywords') }}

),

{{ cosrec_user_entries('keywords') }},

renamed as (

    select
        ----------  ids
        conversation_user_id,
        conversation_id,
        source_user_id,

        ----------  strings
        partition_name,
        {{ json_to_text_array('keywords') }} as keywords,

        ----------  numerics
        cast({{ json_array_length_at('keywords') }} as integer) as n_keywords

    from per_user

)

select * from renamed
