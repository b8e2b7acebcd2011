{#-
    CoSRec README figure "Rating distribution for each feature": per aspect, conversations by
    their rating on it -- the mean over the conversation's annotators rounded to a whole
    point half to even (Python's round, which reproduces the figure: 4.5 -> 4, 3.5 -> 4).
-#}

with

quality as (
    select * from {{ ref('conversation_quality') }}
),

aspect_means as (
    select
        conversation_id,
        aspect,
        mean_value,
        scale_min,
        scale_max,
        -- half to even, written out (portable): x.5 goes to the even neighbour
        case
            when mean_value - floor(mean_value) = 0.5
                then floor(mean_value) + mod(cast(floor(mean_value) as integer), 2)
            else floor(mean_value + 0.5)
        end as rating
    from quality
    where corpus = 'cosrec'
        and rater_kind = 'crowd'
        and not is_overall
        and mean_value is not null
),

aspects as (
    select
        aspect,
        min(scale_min) as scale_min,
        max(scale_max) as scale_max,
        count(*) as n_total
    from aspect_means
    group by aspect
),

digits as (
    select 0 as d union all select 1 union all select 2 union all select 3 union all select 4
    union all select 5 union all select 6 union all select 7 union all select 8 union all select 9
),

grid as (
    select
        aspects.aspect,
        aspects.scale_min + digits.d as rating,
        aspects.n_total
    from aspects
    cross join digits
    where aspects.scale_min + digits.d <= aspects.scale_max
),

counted as (
    select
        aspect,
        rating,
        count(*) as n_conversations
    from aspect_means
    group by aspect, rating
),

final as (
    select
        -- strings
        grid.aspect,
        -- numerics
        cast(grid.rating as integer) as rating,
        cast(coalesce(counted.n_conversations, 0) as integer) as n_conversations,
        cast(coalesce(counted.n_conversations, 0) as double) / grid.n_total as share
    from grid
    left join counted
        on grid.aspect = counted.aspect
        and grid.rating = counted.rating
)

select * from final
