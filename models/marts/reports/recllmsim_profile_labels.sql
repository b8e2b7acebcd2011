{#-
    How often each profile label is given (user_profiling/count.py, statistics/tag.py,
    statistics/profile_plot.py): per user side, release, profile attribute and label, the
    conversations and the distinct profiles whose profile lists the label. Profiles are the conversations' own (`conversations.profile`: a human's `profile`, a
    simulated user's `profile_mapped`); only list-valued attributes carry labels. Attributes
    are named as the scripts name them: the key's part before ' and ', lower case, spaces as
    underscores ('Daily Interests and Hobbies' -> daily_interests). A simulated label is its
    Chinese text (`zh`), with its English (`en`); a human label (Chinese) gets the English the
    simulated profiles give the same label, when they do. `release` = 'all' aggregates every
    release of the side.
-#}

with

conversations as (
    select * from {{ ref('conversations') }}
    where corpus = 'recllmsim'
        and profile is not null
),

measures as (
    select * from {{ ref('recllmsim_conversation_measures') }}
),

attributes as (
    select
        conversations.conversation_id,
        replace(lower(trim({{ dbt.split_part('attribute_entries.entry.key', "' and '", 1) }})), ' ', '_')
            as attribute,
        attribute_entries.entry.value as attribute_value
    from conversations
    {{ unnest_join(parse_json_object_entries(as_json('conversations.profile')), 'attribute_entries', 'entry') }}
    where {{ json_type_of('attribute_entries.entry.value') }} = 'ARRAY'
),

mentions as (
    select
        attributes.conversation_id,
        attributes.attribute,
        case
            when {{ json_type_of('label_list.label') }} = 'OBJECT' then {{ json_text('label_list.label', '$.zh') }}
            else {{ json_text('label_list.label') }}
        end as label,
        case
            when {{ json_type_of('label_list.label') }} = 'OBJECT' then {{ json_text('label_list.label', '$.en') }}
        end as label_en
    from attributes
    {{ unnest_join(json_to_array('attributes.attribute_value'), 'label_list', 'label') }}
),

-- English names from the simulated profiles, which carry both
english as (
    select
        attribute,
        label,
        min(label_en) as label_en
    from mentions
    where label_en is not null
    group by attribute, label
),

labelled as (
    select
        measures.user_side,
        measures.release,
        measures.profile_key,
        mentions.attribute,
        mentions.label,
        mentions.conversation_id
    from mentions
    inner join measures
        on mentions.conversation_id = measures.conversation_id
    where mentions.label is not null
),

-- conversations whose profile has the attribute as a list (the denominator)
listed as (
    select
        measures.user_side,
        case when grouping(measures.release) = 1 then 'all' else measures.release end as release,
        attributes.attribute,
        count(distinct attributes.conversation_id) as n_listing_conversations
    from attributes
    inner join measures
        on attributes.conversation_id = measures.conversation_id
    group by grouping sets ((measures.user_side, measures.release, attributes.attribute),
        (measures.user_side, attributes.attribute))
),

grouped as (
    select
        user_side,
        case when grouping(release) = 1 then 'all' else release end as release,
        attribute,
        label,
        count(distinct conversation_id) as n_conversations,
        count(distinct profile_key) as n_profiles,
        count(*) as n_mentions
    from labelled
    group by grouping sets ((user_side, release, attribute, label), (user_side, attribute, label))
),

final as (
    select
        -- strings
        grouped.user_side,
        grouped.release,
        grouped.attribute,
        grouped.label,
        english.label_en,
        -- numerics
        cast(grouped.n_conversations as integer) as n_conversations,
        cast(grouped.n_profiles as integer) as n_profiles,
        cast(grouped.n_mentions as integer) as n_mentions,
        cast(listed.n_listing_conversations as integer) as n_listing_conversations,
        cast(grouped.n_conversations as double) / listed.n_listing_conversations as share_of_conversations
    from grouped
    inner join listed
        on grouped.user_side = listed.user_side
        and grouped.release = listed.release
        and grouped.attribute = listed.attribute
    left join english
        on grouped.attribute = english.attribute
        and grouped.label = english.label
)

select * from final
