-- Marks exact duplicate votes the way the upstream merge tool (tool/merge.py) drops them:
-- duplicates on (user_id, crs1, crs2, vote) within one votes file (= environment), keeping the
-- first in file order. Nothing is removed here; is_duplicate flags the later copies.

with

votes as (

    select * from {{ ref('stg_crsarena__votes') }}

),

numbered as (

    select
        *,
        row_number() over (
            partition by environment, user_id, crs1, crs2, vote
            order by record_index
        ) as copy_number
    from votes

),

final as (

    select
        ----------  ids
        session_id,
        user_id,

        ----------  strings
        environment,
        crs1,
        crs2,
        vote,
        feedback,

        ----------  numerics
        record_index,
        cast(row_number() over (partition by environment order by record_index) as integer) as vote_order,

        ----------  booleans
        copy_number > 1 as is_duplicate,

        ----------  timestamps
        voted_at

    from numbered

)

select * from final
