with

turns as (

    select * from {{ ref('int_convsearch__turns_indexed') }}

),

conformed as (

    select
        cast(conversation_id as string) as conversation_id,
        cast(turn_index as integer) as turn_index,
        cast(
            case initiator
                when 'user' then 'user'
                when 'agent' then 'system'
            end as string
        ) as role,
        cast(case when is_image then '' else content end as string) as text,
        cast(null as string) as text_translation,
        cast(created_at as timestamp) as created_at,
        cast(is_image as boolean) as is_image,
        cast(turn_id as string) as source_turn_id
    from turns

)

select * from conformed
