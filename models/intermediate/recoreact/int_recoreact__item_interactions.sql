-- Source of the `item_interactions` mart: one row per item a user selected. Each round has
-- three selection steps: step 1 follows the request, step 2 update1, step 3 update2; the
-- step's text and rating (rating1..3) come with it.

with

selections as (

    select * from {{ ref('stg_recoreact__selections') }}

),

impressions as (

    select * from {{ ref('stg_recoreact__impressions') }}

),

final as (

    select
        cast(
            'recoreact:' || selections.domain || ':' || selections.impression_id
            || ':' || selections.selection_step || ':' || selections.selection_position
            as string
        ) as interaction_id,
        cast('recoreact:' || selections.domain || ':' || selections.user_id as string) as conversation_id,
        cast('recoreact:' || selections.domain || ':' || selections.user_id as string) as user_id,
        cast('recoreact:' || selections.domain || ':' || selections.product_id as string) as item_id,
        cast(selections.domain as string) as domain,
        cast(impressions.round as integer) as round,
        cast(selections.selection_step as integer) as selection_step,
        cast(
            case selections.selection_step
                when 1 then impressions.request
                when 2 then impressions.update1
                when 3 then impressions.update2
            end as string
        ) as request_text,
        cast(
            case selections.selection_step
                when 1 then impressions.rating1
                when 2 then impressions.rating2
                when 3 then impressions.rating3
            end as double
        ) as rating
    from selections
    inner join impressions
        on selections.domain = impressions.domain
        and selections.impression_id = impressions.impression_id

)

select * from final
