with

turns as (

    select * from {{ ref('int_recoreact__turns') }}

),

conformed as (

    select
        cast(conversation_id as string) as conversation_id,
        cast(turn_index as integer) as turn_index,
        cast('user' as string) as role,
        cast(text as string) as text,
        cast(null as string) as text_translation,
        cast(null as timestamp) as created_at,
        cast(false as boolean) as is_image,
        cast(impression_id || ':' || text_field as string) as source_turn_id
    from turns

)

select * from conformed
