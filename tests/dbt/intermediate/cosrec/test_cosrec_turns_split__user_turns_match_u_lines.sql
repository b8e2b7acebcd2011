-- The number of user turns split from each CoSRec conversation equals its number of lines
-- starting "U:".

with

conversations as (
    select * from {{ ref('stg_cosrec__conversations') }}
),

turns_split as (
    select * from {{ ref('int_cosrec__turns_split') }}
),

{#- group 0 (the whole match) on both engines: Spark's regexp_extract_all defaults to group 1 -#}
{%- set u_line_matches -%}
    regexp_extract_all(conversation_text, '(^|\n)\s*U:', 0)
{%- endset %}

u_lines as (
    select
        conversation_id,
        {{ array_size(u_line_matches) }} as n_u_lines
    from conversations
),

user_turns as (
    select
        conversation_id,
        count(*) filter (where role = 'user') as n_user_turns
    from turns_split
    group by conversation_id
)

select
    u_lines.conversation_id,
    u_lines.n_u_lines,
    coalesce(user_turns.n_user_turns, 0) as n_user_turns
from u_lines
left join user_turns
    on u_lines.conversation_id = user_turns.conversation_id
where u_lines.n_u_lines <> coalesce(user_turns.n_user_turns, 0)
