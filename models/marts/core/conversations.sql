{#-
    One row per conversation of every corpus, with turn counts from int_turns_unioned (what the
    turns mart holds, without waiting for its Python text measures) and the language detected
    from the Han characters and letters of int_turn_text_counts.
-#}

with

unioned as (
    {{ conformed_union(
        relations=conformed_relations('conversations'),
        columns=[
            'conversation_id', 'corpus', 'subset', 'source_conversation_id', 'domain_or_task',
            'language', 'user_id', 'system_id', 'started_at', 'ended_at', 'user_sentiment',
            'user_satisfaction', 'task_description', 'task_type', 'profile', 'source_path',
            'source_record_index', 'source_attributes',
        ],
    ) }}
),

-- the costly per-text counts come from int_turn_text_counts, counted again only for the
-- corpora whose turns changed
turns as (
    select
        unioned.conversation_id,
        unioned.role,
        unioned.merged_turn_index,
        counts.n_han_chars,
        counts.n_letters
    from {{ ref('int_turns_unioned') }} as unioned
    inner join {{ ref('int_turn_text_counts') }} as counts
        on
            unioned.conversation_id = counts.conversation_id
            and unioned.turn_index = counts.turn_index
),

turn_counts as (
    select
        conversation_id,
        count(*) as n_turns,
        sum(case when role = 'user' then 1 else 0 end) as n_user_turns,
        sum(case when role = 'system' then 1 else 0 end) as n_system_turns,
        max(merged_turn_index) + 1 as n_merged_turns,
        -- language detection reads what the users wrote (an assistant may answer in another
        -- language), or every turn when the users wrote no letters
        sum(case when role = 'user' then n_han_chars else 0 end) as n_user_han_chars,
        sum(case when role = 'user' then n_letters else 0 end) as n_user_letters,
        sum(n_han_chars) as n_all_han_chars,
        sum(n_letters) as n_all_letters
    from turns
    group by conversation_id
),

han_shares as (
    select
        conversation_id,
        case
            when n_user_letters > 0 then cast(n_user_han_chars as double) / n_user_letters
            when n_all_letters > 0 then cast(n_all_han_chars as double) / n_all_letters
        end as han_char_share
    from turn_counts
),

final as (
    select
        -- ids
        unioned.conversation_id,
        unioned.source_conversation_id,
        unioned.user_id,
        unioned.system_id,
        -- strings
        unioned.corpus,
        unioned.subset,
        unioned.domain_or_task,
        unioned.task_type,
        unioned.task_description,
        -- detected from the text: zh when at least var zh_min_han_share of the letters the
        -- users wrote (all turns' letters when the users wrote none) are Han characters, else
        -- en; the corpus' declared language when there is no text
        case
            when han_shares.han_char_share is null then unioned.language
            when han_shares.han_char_share >= {{ var('zh_min_han_share') }} then 'zh'
            else 'en'
        end as language,
        unioned.user_sentiment,
        unioned.profile,
        unioned.source_path,
        unioned.source_attributes,
        -- numerics
        cast(coalesce(turn_counts.n_turns, 0) as integer) as n_turns,
        cast(coalesce(turn_counts.n_user_turns, 0) as integer) as n_user_turns,
        cast(coalesce(turn_counts.n_system_turns, 0) as integer) as n_system_turns,
        cast(coalesce(turn_counts.n_merged_turns, 0) as integer) as n_merged_turns,
        unioned.user_satisfaction,
        han_shares.han_char_share,
        cast(unioned.source_record_index as bigint) as source_record_index,
        -- timestamps
        unioned.started_at,
        unioned.ended_at
    from unioned
    left join turn_counts
        on unioned.conversation_id = turn_counts.conversation_id
    left join han_shares
        on unioned.conversation_id = han_shares.conversation_id
)

select * from final
