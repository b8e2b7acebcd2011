{#-
    CRSArena-Dial battle matrix: one row per environment (open, closed, combined) and ordered
    pair (system_a = the vote file's crs1, system_b = its crs2) of every CRS seen in a vote or
    a dialogue, zeros included, as the dataset's analysis tabulates it.
-#}

with

votes as (
    select * from {{ ref('votes') }}
),

conversations as (
    select * from {{ ref('conversations') }}
    where corpus = 'crsarena'
),

environments as (
    select 'open' as environment
    union all
    select 'closed' as environment
    union all
    select 'combined' as environment
),

systems as (
    select system_a as system_id from votes where system_a is not null
    union
    select system_b as system_id from votes where system_b is not null
    union
    select system_id from conversations where system_id is not null
),

-- the analysis keeps the battles "with valid conversations": the voter held a dialogue in
-- the same environment
voters as (
    select distinct subset as environment, user_id
    from conversations
),

scored as (
    select
        votes.environment,
        votes.system_a,
        votes.system_b,
        votes.winner,
        case when voters.user_id is not null then 1 else 0 end as is_battle
    from votes
    left join voters
        on votes.environment = voters.environment
        and votes.user_id = voters.user_id
),

scoped as (
    select environment, system_a, system_b, winner, is_battle from scored
    union all
    select 'combined' as environment, system_a, system_b, winner, is_battle from scored
),

counted as (
    select
        environment,
        system_a,
        system_b,
        count(*) as n_votes,
        sum(is_battle) as n_battles,
        sum(case when is_battle = 1 and winner = 'a' then 1 else 0 end) as n_wins_a,
        sum(case when is_battle = 1 and winner = 'b' then 1 else 0 end) as n_wins_b,
        sum(case when is_battle = 1 and winner = 'tie' then 1 else 0 end) as n_ties
    from scoped
    group by environment, system_a, system_b
),

grid as (
    select environments.environment, a.system_id as system_a, b.system_id as system_b
    from environments
    cross join systems as a
    cross join systems as b
),

final as (
    select
        -- strings
        grid.environment,
        grid.system_a,
        grid.system_b,
        -- numerics
        cast(coalesce(counted.n_votes, 0) as integer) as n_votes,
        cast(coalesce(counted.n_battles, 0) as integer) as n_battles,
        cast(coalesce(counted.n_wins_a, 0) as integer) as n_wins_a,
        cast(coalesce(counted.n_wins_b, 0) as integer) as n_wins_b,
        cast(coalesce(counted.n_ties, 0) as integer) as n_ties
    from grid
    left join counted
        on grid.environment = counted.environment
        and grid.system_a = counted.system_a
        and grid.system_b = counted.system_b
)

select * from final
