-- One row per ConvSearch user (the participant in the user role of a dialogue). The corpus
-- has no profiles; keywords joins the keywords the user gave before each dialogue.

with

dialogs as (

    select * from {{ ref('stg_convsearch__dialogs') }}

),

users as (

    select
        user_id,
        string_agg(distinct nullif(trim(keywords), ''), '; ' order by nullif(trim(keywords), '')) as keywords
    from dialogs
    group by user_id

),

conformed as (

    select
        cast('convsearch:' || user_id as varchar) as user_id,
        cast('convsearch' as varchar) as corpus,
        cast(user_id as varchar) as source_user_id,
        cast('main' as varchar) as subset,
        cast(null as varchar) as profile_text,
        cast(keywords as varchar) as keywords,
        cast(null as varchar) as attributes
    from users

)

select * from conformed
