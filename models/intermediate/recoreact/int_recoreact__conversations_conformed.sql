-- One conversation per (domain, user): the user's three rounds with the random assistant.

with

impressions as (

    select * from {{ ref('stg_recoreact__impressions') }}

),

users as (

    select * from {{ ref('stg_recoreact__users') }}

),

sessions as (

    select distinct
        domain,
        user_id
    from impressions

),

conformed as (

    select
        cast('recoreact:' || sessions.domain || ':' || sessions.user_id as string) as conversation_id,
        cast('recoreact' as string) as corpus,
        cast(sessions.domain as string) as subset,
        cast(sessions.domain || ':' || sessions.user_id as string) as source_conversation_id,
        cast(sessions.domain as string) as domain_or_task,
        cast('en' as string) as language,
        cast('recoreact:' || sessions.domain || ':' || sessions.user_id as string) as user_id,
        cast('random_assistant' as string) as system_id,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as string) as user_sentiment,
        -- the user's end-of-study satisfaction with the recommendations, 1..5 scaled to [0,1]
        cast((users.recs_satisfied - 1) / 4 as double) as user_satisfaction,
        cast(null as string) as task_description,
        cast(null as string) as task_type,
        cast(null as string) as profile,
        -- the user's record in <domain>-users.jsonl
        cast(users.source_path as string) as source_path,
        cast(users.record_index as bigint) as source_record_index,
        cast(null as string) as source_attributes
    from sessions
    left join users
        on sessions.domain = users.domain
        and sessions.user_id = users.user_id

)

select * from conformed
