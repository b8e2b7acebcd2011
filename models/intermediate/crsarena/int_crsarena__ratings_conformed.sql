-- The only rating in CRSArena-Dial: the user's end-of-dialogue sentiment (satisfied = 1,
-- frustrated = 0), aspect 'satisfied' in the rating_scales seed.

with

dialogues as (

    select * from {{ ref('stg_crsarena__dialogues') }}

),

conformed as (

    select
        cast('crsarena:' || dialogue_id as string) as conversation_id,
        cast(null as integer) as turn_index,
        cast(null as string) as item_id,
        cast('user' as string) as rater_kind,
        cast('crsarena:' || user_id as string) as rater_id,
        cast('satisfied' as string) as aspect,
        cast(
            case sentiment
                when 'satisfied' then 1
                when 'frustrated' then 0
            end as double
        ) as value,
        cast(null as string) as raw_value,
        cast(null as string) as comment
    from dialogues
    where sentiment in ('satisfied', 'frustrated')

)

select * from conformed
