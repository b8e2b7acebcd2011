{#-
    The custom conversations, one per landed line, with global ids and their corpus.json
    defaults. Ingest rejects a line without a usable id and every later copy of an id within a
    corpus (ingest/custom.py), so every record here has one; the not_null and unique tests on
    conversation_id (_custom__models.yml) would catch one that got through.
-#}

with

conversations as (

    select * from {{ ref('stg_custom__conversations') }}

),

corpora as (

    select * from {{ ref('stg_custom__corpora') }}

),

final as (

    select
        -- ids: '<name>/<id>' within the corpus 'custom', so two custom corpora never collide
        {{ global_id('custom', "conversations.corpus_name || '/' || conversations.source_id") }}
            as conversation_id,
        conversations.corpus_name || '/' || conversations.source_id as source_conversation_id,
        case
            when conversations.source_user_id is not null
                then conversations.corpus_name || '/' || conversations.source_user_id
        end as source_user_id,
        conversations.system_id,
        -- strings
        conversations.corpus_name,
        -- the corpus name, or '<name>/<subset>' when the record names a subset
        case
            when conversations.subset is null then conversations.corpus_name
            else conversations.corpus_name || '/' || conversations.subset
        end as subset,
        -- a record's own domain_or_task / task_type (as `csrwh export` writes them) win over `task`
        coalesce(conversations.domain_or_task, conversations.task, corpora.domain) as domain_or_task,
        coalesce(conversations.task_type, conversations.task) as task_type,
        conversations.user_sentiment,
        coalesce(conversations.language, corpora.language) as language,
        coalesce(corpora.rater_kind, 'author') as rater_kind,
        corpora.label_source,
        conversations.rating_entries,
        nullif(cast(conversations.other_fields as string), '{}') as source_attributes,
        conversations.source_path,
        -- numerics
        conversations.user_satisfaction,
        conversations.record_index,
        conversations.line_number
    from conversations
    left join corpora
        on conversations.corpus_name = corpora.corpus_name

)

select * from final
