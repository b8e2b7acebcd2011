-- The only rating in CRSArena-Dial: the user's end-of-dialogue sentiment (satisfied = 1,
-- frustrated = 0), aspect 'satisfied' in the rating_scales seed.

with

dialogues as (

    select * from {{ ref('stg_crsarena__dialogues') }}

),

conformed as (

    select
        cast('crsarena:' || dialogue_id as varchar) as conversation_id,
        cast(null as integer) as turn_index,
        cast(null as varchar) as item_id,
        cast('user' as varchar) as rater_kind,
        cast('crsarena:' || user_id as varchar) as rater_id,
        cast('satisfied' as varchar) as aspect,
        cast(
            case sentiment
                when 'satisfied' then 1
                when 'frustrated' then 0
            end as double
        ) as value,
        cast(null as varchar) as raw_value,
        cast(null as varchar) as comment
    from dialogues
    where sentiment in ('satisfied', 'frustrated')

)

select * from conformed
