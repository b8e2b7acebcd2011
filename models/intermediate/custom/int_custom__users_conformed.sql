{#-
    One row per user of a custom corpus: the users of its users.jsonl (with their profiles) and
    the users only its conversations name (no profile). A user in both is the file's row; their
    subset is the one the file gives, else the one subset of their conversations.
-#}

with

conversations as (

    select * from {{ ref('int_custom__conversations') }}

),

listed as (

    -- ingest rejects a line without a usable id and every later copy of an id in a corpus
    select
        corpus_name || '/' || source_user_id as source_user_id,
        case when subset is not null then corpus_name || '/' || subset end as subset,
        profile_text,
        keywords,
        attributes
    from {{ ref('stg_custom__users') }}
    where source_user_id is not null

),

seen as (

    select
        source_user_id,
        {{ agg_distinct_sorted('subset') }} as subsets
    from conversations
    where source_user_id is not null
    group by source_user_id

),

conformed as (

    select
        cast({{ global_id('custom', 'coalesce(listed.source_user_id, seen.source_user_id)') }} as string)
            as user_id,
        cast('custom' as string) as corpus,
        cast(coalesce(listed.source_user_id, seen.source_user_id) as string) as source_user_id,
        -- a user seen in several subsets has no single subset
        cast(
            coalesce(
                listed.subset,
                case when {{ array_size('seen.subsets') }} = 1 then {{ array_at('seen.subsets', 1) }} end
            ) as string
        ) as subset,
        cast(listed.profile_text as string) as profile_text,
        cast(listed.keywords as string) as keywords,
        cast(listed.attributes as string) as attributes
    from listed
    full outer join seen
        on listed.source_user_id = seen.source_user_id

)

select * from conformed
