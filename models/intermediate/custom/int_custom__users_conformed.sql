{#- One row per user_id of a custom corpus (the format has no profiles). -#}

with

conversations as (

    select * from {{ ref('int_custom__conversations') }}

),

users as (

    select
        source_user_id,
        {{ agg_distinct_sorted('subset') }} as subsets
    from conversations
    where source_user_id is not null
    group by source_user_id

),

conformed as (

    select
        cast({{ global_id('custom', 'source_user_id') }} as string) as user_id,
        cast('custom' as string) as corpus,
        cast(source_user_id as string) as source_user_id,
        -- a user seen in several subsets has no single subset
        cast(case when {{ array_size('subsets') }} = 1 then {{ array_at('subsets', 1) }} end as string) as subset,
        cast(null as string) as profile_text,
        cast(null as string) as keywords,
        cast(null as string) as attributes
    from users

)

select * from conformed
