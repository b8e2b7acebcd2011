-- Source of the `votes` mart: one row per recorded vote, duplicates flagged, with global ids.

with

votes as (

    select * from {{ ref('int_crsarena__votes_linked_to_dialogues') }}

),

final as (

    select
        cast('crsarena:' || environment || ':' || record_index as string) as vote_id,
        cast(environment as string) as environment,
        cast(voted_at as timestamp) as voted_at,
        cast('crsarena:' || user_id as string) as user_id,
        cast(crs1 as string) as system_a,
        cast(crs2 as string) as system_b,
        cast(
            case
                when vote = 'tie' then 'tie'
                when vote = crs1 then 'a'
                when vote = crs2 then 'b'
            end as string
        ) as winner,
        cast(feedback as string) as feedback,
        cast(is_duplicate as boolean) as is_duplicate,
        cast('crsarena:' || crs1_dialogue_id as string) as conversation_id_a,
        cast('crsarena:' || crs2_dialogue_id as string) as conversation_id_b,
        cast(vote_order as integer) as vote_order
    from votes

)

select * from final
