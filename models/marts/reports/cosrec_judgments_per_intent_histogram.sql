{#-
    CoSRec README figure "Relevance Judgments per Intent": per relevance grade, intents by how
    many judgments of that grade they have (all topics of an intent pooled: its search topic
    or its personalised topics '<intent>#k'), in bins of 25 from 0; zero counts in the first.
-#}

with

judgments as (
    select * from {{ ref('relevance_judgments') }}
    where corpus = 'cosrec'
),

intents as (
    select distinct intent_id
    from judgments
    where intent_id is not null
),

grades as (
    select 0 as grade, 'not relevant' as grade_label
    union all select 1 as grade, 'partially relevant' as grade_label
    union all select 2 as grade, 'highly relevant' as grade_label
),

per_intent as (
    select
        intent_id,
        grade,
        count(*) as n_judgments
    from judgments
    where intent_id is not null
    group by intent_id, grade
),

intent_grades as (
    select
        intents.intent_id,
        grades.grade,
        coalesce(per_intent.n_judgments, 0) as n_judgments
    from intents
    cross join grades
    left join per_intent
        on intents.intent_id = per_intent.intent_id
        and grades.grade = per_intent.grade
),

-- bins up to the README figure's axis (275) or further when an intent has more judgments
extent as (
    select
        count(*) as n_rows,
        greatest(11, cast(floor(max(n_judgments) / 25.0) as integer) + 1) as n_bins
    from intent_grades
),

digits as (
    select 0 as d union all select 1 union all select 2 union all select 3 union all select 4
    union all select 5 union all select 6 union all select 7 union all select 8 union all select 9
),

bins as (
    select hundreds.d * 100 + tens.d * 10 + units.d as bin_index
    from digits as hundreds
    cross join digits as tens
    cross join digits as units
    cross join extent
    where extent.n_rows > 0
        and hundreds.d * 100 + tens.d * 10 + units.d < extent.n_bins
),

binned as (
    select
        grade,
        cast(floor(n_judgments / 25.0) as integer) as bin_index,
        count(*) as n_intents
    from intent_grades
    group by grade, cast(floor(n_judgments / 25.0) as integer)
),

final as (
    select
        -- numerics
        cast(grades.grade as integer) as grade,
        -- strings
        grades.grade_label,
        -- numerics
        cast(bins.bin_index as integer) as bin_index,
        cast(bins.bin_index * 25 as integer) as bin_lower,
        cast(bins.bin_index * 25 + 25 as integer) as bin_upper,
        cast(coalesce(binned.n_intents, 0) as integer) as n_intents
    from grades
    cross join bins
    left join binned
        on grades.grade = binned.grade
        and bins.bin_index = binned.bin_index
)

select * from final
