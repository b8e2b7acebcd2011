-- A vote names one of the two CRSs of the battle, or is a tie.
select
    environment,
    record_index,
    crs1,
    crs2,
    vote
from {{ ref('stg_crsarena__votes') }}
where vote not in (crs1, crs2, 'tie')
    or crs1 = crs2
