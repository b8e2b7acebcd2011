{#- One row per user_id of a custom corpus (the format has no profiles). -#}

with

conversations as (

    select * from {{ ref('int_custom__conversations') }}

),

users as (

    select
        source_user_id,
        list(distinct subset order by subset) as subsets
    from conversations
    where source_user_id is not null
    group by source_user_id

),

conformed as (

    select
        cast({{ global_id('custom', 'source_user_id') }} as varchar) as user_id,
        cast('custom' as varchar) as corpus,
        cast(source_user_id as varchar) as source_user_id,
        -- a user seen in several subsets has no single subset
        cast(case when len(subsets) = 1 then subsets[1] end as varchar) as subset,
        cast(null as varchar) as profile_text,
        cast(null as varchar) as keywords,
        cast(null as varchar) as attributes
    from users

)

select * from conformed
