-- Recommendation (personalised) judgments carry a user index; search judgments do not.

select
    judgment_id,
    judgment_kind,
    user_index
from {{ ref('int_cosrec__relevance_judgments_conformed') }}
where (judgment_kind = 'recommendation') <> (user_index is not null)
