with

utterances as (

    select * from {{ ref('stg_crsarena__utterances') }}

),

conformed as (

    select
        cast('crsarena:' || dialogue_id as string) as conversation_id,
        cast(utterance_position as integer) as turn_index,
        cast(
            case participant
                when 'USER' then 'user'
                when 'AGENT' then 'system'
            end as string
        ) as role,
        cast(utterance_text as string) as text,
        cast(null as string) as text_translation,
        cast(null as timestamp) as created_at,
        cast(false as boolean) as is_image,
        cast(utterance_id as string) as source_turn_id
    from utterances

)

select * from conformed
