{#-
    CoSRec users (Amazon reviewer ids) in the conformed contract: one row per distinct user of
    profiles.jsonl or keywords.jsonl, across all conversations that list them.
-#}

with

profiles as (

    select * from {{ ref('stg_cosrec__profiles') }}

),

keywords as (

    select * from {{ ref('stg_cosrec__keywords') }}

),

conversation_users as (

    select
        coalesce(profiles.conversation_id, keywords.conversation_id) as conversation_id,
        coalesce(profiles.source_user_id, keywords.source_user_id) as source_user_id,
        coalesce(profiles.partition_name, keywords.partition_name) as partition_name,
        profiles.profile_summary,
        keywords.keywords
    from profiles
    full outer join keywords
        on profiles.conversation_user_id = keywords.conversation_user_id

),

users as (

    select
        source_user_id,
        -- the partition and summary of the user's first conversation (by id) that has one
        {{ arg_min('partition_name', 'conversation_id') }} as partition_name,
        {{ arg_min('profile_summary', 'conversation_id') }} filter (
            where profile_summary is not null
        ) as profile_summary,
        {{ flatten_lists(agg_list_ordered('keywords', 'conversation_id')) }} as all_keywords,
        {{ agg_distinct_sorted('conversation_id') }} as conversation_ids
    from conversation_users
    group by source_user_id

),

final as (

    select
        cast({{ global_id('cosrec', 'source_user_id') }} as string) as user_id,
        cast('cosrec' as string) as corpus,
        cast(source_user_id as string) as source_user_id,
        cast(partition_name as string) as subset,
        cast(profile_summary as string) as profile_text,
        -- first occurrence of each keyword, in the upstream order
        cast(
            nullif(
                {{ list_join(list_distinct_in_order('all_keywords'), "'; '") }},
                ''
            ) as string
        ) as keywords,
        {{ json_object_text([
            'conversation_ids',
            list_transform('conversation_ids', 'conversation_id', "'cosrec:' || conversation_id"),
        ]) }} as attributes
    from users

)

select * from final
