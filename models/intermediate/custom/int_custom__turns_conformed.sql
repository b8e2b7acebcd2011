{#- Custom user and assistant messages in the conformed turns contract (docs/ARCHITECTURE.md). -#}

with

turns as (

    select * from {{ ref('int_custom__turns') }}

),

conformed as (

    select
        cast(conversation_id as string) as conversation_id,
        cast(turn_index as integer) as turn_index,
        cast(role as string) as role,
        cast(message_text as string) as text,
        cast(null as string) as text_translation,
        cast(null as timestamp) as created_at,
        cast(false as boolean) as is_image,
        -- the message's 0-based position in the record's `messages` array
        cast(message_index as string) as source_turn_id
    from turns

)

select * from conformed
