{#-
    Conversation-level quality: per conversation, rater kind and aspect the mean over its
    annotators, plus one 'overall' row per conversation and rater kind -- the mean of the
    aspect means, as CoSRec's README plots a conversation's "average rating". See the yml.
-#}

with

ratings as (
    select * from {{ ref('ratings') }}
),

conversations as (
    select * from {{ ref('conversations') }}
),

rating_scales as (
    select * from {{ ref('rating_scales') }}
),

-- conversation-level ratings only: no turn, no item; a rating without a number cannot be averaged
conversation_ratings as (
    select
        conversation_id,
        corpus,
        rater_kind,
        rater_id,
        aspect,
        value,
        value_normalized,
        scale_min,
        scale_max,
        higher_is_better
    from ratings
    where turn_index is null
        and item_id is null
        and value is not null
),

aspect_means as (
    select
        conversation_id,
        corpus,
        rater_kind,
        aspect,
        -- a rating without a rater id counts as its own (unnamed) annotator
        cast(count(distinct rater_id) + count(*) - count(rater_id) as integer) as n_annotators,
        count(*) - count(rater_id) as n_unnamed,
        cast(count(*) as integer) as n_ratings,
        -- 10 decimals: the mean as a decimal number, free of binary summation noise
        round(avg(value), 10) as mean_value,
        round(avg(value_normalized), 10) as mean_normalized,
        -- one scale per (corpus, aspect): the rating_scales seed
        scale_min,
        scale_max,
        higher_is_better
    from conversation_ratings
    group by conversation_id, corpus, rater_kind, aspect, scale_min, scale_max, higher_is_better
),

-- the aspects an overall quality averages: conversation-level, higher-is-better ones of the seed
quality_aspects as (
    select
        corpus,
        aspect
    from rating_scales
    where level = 'conversation'
        and higher_is_better
),

-- distinct named raters over the quality aspects (unnamed ones: see `overall`)
overall_raters as (
    select
        conversation_ratings.conversation_id,
        conversation_ratings.rater_kind,
        count(distinct conversation_ratings.rater_id) as n_named
    from conversation_ratings
    inner join quality_aspects
        on conversation_ratings.corpus = quality_aspects.corpus
        and conversation_ratings.aspect = quality_aspects.aspect
    group by conversation_ratings.conversation_id, conversation_ratings.rater_kind
),

overall as (
    select
        aspect_means.conversation_id,
        aspect_means.corpus,
        aspect_means.rater_kind,
        'overall' as aspect,
        cast(count(*) as integer) as n_aspects,
        cast(sum(aspect_means.n_ratings) as integer) as n_ratings,
        -- unnamed raters (e.g. the one LLM judge) are assumed the same across aspects
        max(aspect_means.n_unnamed) as n_unnamed,
        -- on the aspects' own scale only when they share one
        case
            when min(aspect_means.scale_min) = max(aspect_means.scale_min)
                and min(aspect_means.scale_max) = max(aspect_means.scale_max)
                then round(avg(aspect_means.mean_value), 10)
        end as mean_value,
        round(avg(aspect_means.mean_normalized), 10) as mean_normalized,
        case
            when min(aspect_means.scale_min) = max(aspect_means.scale_min)
                and min(aspect_means.scale_max) = max(aspect_means.scale_max)
                then min(aspect_means.scale_min)
        end as scale_min,
        case
            when min(aspect_means.scale_min) = max(aspect_means.scale_min)
                and min(aspect_means.scale_max) = max(aspect_means.scale_max)
                then max(aspect_means.scale_max)
        end as scale_max
    from aspect_means
    inner join quality_aspects
        on aspect_means.corpus = quality_aspects.corpus
        and aspect_means.aspect = quality_aspects.aspect
    group by aspect_means.conversation_id, aspect_means.corpus, aspect_means.rater_kind
),

unioned as (
    select
        conversation_id,
        corpus,
        rater_kind,
        aspect,
        false as is_overall,
        1 as n_aspects,
        n_annotators,
        n_ratings,
        mean_value,
        mean_normalized,
        scale_min,
        scale_max,
        higher_is_better
    from aspect_means
    union all
    select
        overall.conversation_id,
        overall.corpus,
        overall.rater_kind,
        overall.aspect,
        true as is_overall,
        overall.n_aspects,
        cast(overall_raters.n_named + overall.n_unnamed as integer) as n_annotators,
        overall.n_ratings,
        overall.mean_value,
        overall.mean_normalized,
        overall.scale_min,
        overall.scale_max,
        true as higher_is_better
    from overall
    inner join overall_raters
        on overall.conversation_id = overall_raters.conversation_id
        and overall.rater_kind = overall_raters.rater_kind
),

final as (
    select
        -- strings
        unioned.conversation_id,
        unioned.corpus,
        conversations.subset,
        unioned.rater_kind,
        unioned.aspect,
        -- booleans
        unioned.is_overall,
        -- numerics
        cast(unioned.n_aspects as integer) as n_aspects,
        unioned.n_annotators,
        unioned.n_ratings,
        unioned.mean_value,
        unioned.mean_normalized,
        unioned.scale_min,
        unioned.scale_max,
        unioned.higher_is_better
    from unioned
    left join conversations
        on unioned.conversation_id = conversations.conversation_id
)

select * from final
