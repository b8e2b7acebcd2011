{#-
    How consistently each user keeps one behaviour (user_behavior/count_user.py): per user, the
    share of the user's labelled conversations that carry the user's most frequent final label
    of a dimension; summarised per user side, release, scheme and dimension. `release` = 'all'
    aggregates every release of the side. Users are human users (release/User_k folders) or
    simulated preference profiles.
-#}

with

{{ recllmsim_final_labels() }},

per_label as (
    select
        measures.user_side,
        measures.release,
        measures.user_id,
        labels.scheme,
        labels.dimension,
        labels.label_value,
        count(*) as n_conversations
    from labels
    inner join measures
        on labels.conversation_id = measures.conversation_id
    group by measures.user_side, measures.release, measures.user_id, labels.scheme, labels.dimension,
        labels.label_value
),

per_user as (
    select
        user_side,
        release,
        user_id,
        scheme,
        dimension,
        cast(max(n_conversations) as double) / sum(n_conversations) as modal_share
    from per_label
    group by user_side, release, user_id, scheme, dimension
),

final as (
    select
        -- strings
        user_side,
        case when grouping(release) = 1 then 'all' else release end as release,
        scheme,
        dimension,
        -- numerics
        cast(count(*) as integer) as n_users,
        avg(modal_share) as mean_modal_share,
        stddev_samp(modal_share) as sd_modal_share,
        -- count_user.py's threshold: users whose most frequent label covers more than 80%
        cast(count(case when modal_share > 0.8 then 1 end) as integer) as n_users_modal_share_over_80pct,
        cast(count(case when modal_share = 1 then 1 end) as integer) as n_users_single_label
    from per_user
    group by grouping sets ((user_side, release, scheme, dimension), (user_side, scheme, dimension))
)

select * from final
