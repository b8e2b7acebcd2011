-- One row per RecoReact user of a domain (users file, plus any user seen only in impressions).

with

users as (

    select * from {{ ref('stg_recoreact__users') }}

),

impressions as (

    select * from {{ ref('stg_recoreact__impressions') }}

),

domain_users as (

    select domain, user_id from users
    union
    select domain, user_id from impressions

),

conformed as (

    select
        cast('recoreact:' || domain_users.domain || ':' || domain_users.user_id as string) as user_id,
        cast('recoreact' as string) as corpus,
        cast(domain_users.user_id as string) as source_user_id,
        cast(domain_users.domain as string) as subset,
        cast(users.desc_sources as string) as profile_text,
        cast({{ list_join('users.source_types', "'; '") }} as string) as keywords,
        -- every other profile and survey field, as given (JSON merge patch: null removes a key)
        cast(
            {{ json_without_keys('users.profile_json', ['uid', 'desc_sources', 'source_types']) }}
            as string
        ) as attributes
    from domain_users
    left join users
        on domain_users.domain = users.domain
        and domain_users.user_id = users.user_id

)

select * from conformed
