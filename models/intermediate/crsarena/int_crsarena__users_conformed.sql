-- One row per CRSArena user: everyone who held a dialogue or cast a vote. The corpus has no
-- profiles; attributes lists the environments the user took part in.

with

dialogues as (

    select * from {{ ref('stg_crsarena__dialogues') }}

),

votes as (

    select * from {{ ref('stg_crsarena__votes') }}

),

participations as (

    select user_id, environment from dialogues
    union all
    select user_id, environment from votes

),

users as (

    select
        user_id,
        {{ agg_distinct_sorted('environment') }} as environments
    from participations
    group by user_id

),

conformed as (

    select
        cast('crsarena:' || user_id as string) as user_id,
        cast('crsarena' as string) as corpus,
        cast(user_id as string) as source_user_id,
        -- a user seen in both settings has no single subset
        cast(
            case when {{ array_size('environments') }} = 1 then {{ array_at('environments', 1) }} end as string
        ) as subset,
        cast(null as string) as profile_text,
        cast(null as string) as keywords,
        {{ json_object_text(['environments', 'environments']) }} as attributes
    from users

)

select * from conformed
