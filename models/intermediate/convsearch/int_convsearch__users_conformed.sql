-- One row per ConvSearch user (the participant in the user role of a dialogue). The corpus
-- has no profiles; keywords joins the keywords the user gave before each dialogue.

with

dialogs as (

    select * from {{ ref('stg_convsearch__dialogs') }}

),

users as (

    select
        user_id,
        {{ string_agg_distinct_sorted("nullif(trim(keywords), '')", "'; '") }} as keywords
    from dialogs
    group by user_id

),

conformed as (

    select
        cast('convsearch:' || user_id as string) as user_id,
        cast('convsearch' as string) as corpus,
        cast(user_id as string) as source_user_id,
        cast('main' as string) as subset,
        cast(null as string) as profile_text,
        cast(keywords as string) as keywords,
        cast(null as string) as attributes
    from users

)

select * from conformed
