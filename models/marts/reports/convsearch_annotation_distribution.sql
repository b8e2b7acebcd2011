{#-
    ConvSearch Table 2 (statistical analysis): for every annotation item, the share of its
    given grades (0..4) -- dialogue-level items once per dialogue, turn-level items once per
    annotated turn, helpfulness once per landing page.
-#}

with

ratings as (
    select * from {{ ref('ratings') }}
),

annotations as (
    select
        case
            when item_id is not null then 'page'
            when turn_index is not null then 'turn'
            else 'dialogue'
        end as level,
        aspect,
        rater_kind,
        value,
        scale_min,
        scale_max
    from ratings
    where corpus = 'convsearch'
        and value is not null
),

items as (
    select
        level,
        aspect,
        min(rater_kind) as rater_kind,
        min(scale_min) as scale_min,
        max(scale_max) as scale_max,
        count(*) as n_total
    from annotations
    group by level, aspect
),

digits as (
    select 0 as d union all select 1 union all select 2 union all select 3 union all select 4
    union all select 5 union all select 6 union all select 7 union all select 8 union all select 9
),

grid as (
    select
        items.level,
        items.aspect,
        items.rater_kind,
        items.scale_min + digits.d as grade,
        items.n_total
    from items
    cross join digits
    where items.scale_min + digits.d <= items.scale_max
),

counted as (
    select
        level,
        aspect,
        value as grade,
        count(*) as n_ratings
    from annotations
    group by level, aspect, value
),

final as (
    select
        -- strings
        grid.level,
        grid.aspect,
        grid.rater_kind,
        -- numerics
        cast(grid.grade as integer) as grade,
        cast(coalesce(counted.n_ratings, 0) as integer) as n_ratings,
        cast(grid.n_total as integer) as n_annotated,
        -- a double on every engine (Spark's 100.0 is a decimal)
        cast(100 as double) * coalesce(counted.n_ratings, 0) / grid.n_total as percent_of_ratings
    from grid
    left join counted
        on grid.level = counted.level
        and grid.aspect = counted.aspect
        and grid.grade = counted.grade
)

select * from final
