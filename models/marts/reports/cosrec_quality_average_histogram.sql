{#-
    CoSRec README figure "Average rating distribution": conversations by their average
    quality (`conversation_quality`, aspect 'overall') in bins of 0.5 over the 1..5 scale.
    An average on an edge goes to the upper bin; the last bin includes the top of the scale.
-#}

with

quality as (
    select * from {{ ref('conversation_quality') }}
),

averages as (
    select
        conversation_id,
        mean_value,
        scale_min,
        scale_max
    from quality
    where corpus = 'cosrec'
        and rater_kind = 'crowd'
        and is_overall
        and mean_value is not null
),

scale as (
    select
        min(scale_min) as scale_min,
        max(scale_max) as scale_max,
        count(*) as n_conversations
    from averages
),

digits as (
    select 0 as d union all select 1 union all select 2 union all select 3 union all select 4
    union all select 5 union all select 6 union all select 7 union all select 8 union all select 9
),

bins as (
    select
        tens.d * 10 + units.d as bin_index,
        scale.scale_min + (tens.d * 10 + units.d) * 0.5 as bin_lower,
        scale.scale_min + (tens.d * 10 + units.d + 1) * 0.5 as bin_upper,
        scale.n_conversations as n_total
    from digits as tens
    cross join digits as units
    cross join scale
    where scale.n_conversations > 0
        and (tens.d * 10 + units.d) * 0.5 < scale.scale_max - scale.scale_min
),

binned as (
    select
        case
            when averages.mean_value >= scale.scale_max
                then cast((scale.scale_max - scale.scale_min) / 0.5 as integer) - 1
            else cast(floor((averages.mean_value - scale.scale_min) / 0.5) as integer)
        end as bin_index,
        count(*) as n_conversations
    from averages
    cross join scale
    group by 1
),

final as (
    select
        -- numerics
        cast(bins.bin_index as integer) as bin_index,
        cast(bins.bin_lower as double) as bin_lower,
        cast(bins.bin_upper as double) as bin_upper,
        cast(coalesce(binned.n_conversations, 0) as integer) as n_conversations,
        cast(coalesce(binned.n_conversations, 0) as double) / bins.n_total as share
    from bins
    left join binned
        on bins.bin_index = binned.bin_index
)

select * from final
