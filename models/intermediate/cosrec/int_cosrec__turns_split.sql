{#-
    CoSRec conversation text split into utterances. Each line starting "U:" (user) or "S:"
    (system) starts an utterance, without its prefix; a line with neither prefix continues
    the utterance before it (lines before the first prefix form an utterance of unknown
    role, which the role tests flag).
-#}

with

conversations as (

    select * from {{ ref('stg_cosrec__conversations') }}

),

lines as (

    select
        conversations.conversation_id,
        conversation_lines.line_text,
        conversation_lines.line_number
    from conversations
    {{ unnest_join(
        split_on_char('conversations.conversation_text', 'chr(10)'),
        'conversation_lines', 'line_text', 'line_number'
    ) }}

),

lines_classified as (

    select
        conversation_id,
        line_number,
        line_text,
        case
            when {{ regexp_contains('line_text', '^\\s*U:') }} then 'user'
            when {{ regexp_contains('line_text', '^\\s*S:') }} then 'system'
        end as line_role
    from lines

),

lines_grouped as (

    select
        conversation_id,
        line_number,
        line_role,
        regexp_replace(line_text, '^\s*[US]:\s?', '') as line_text_without_prefix,
        -- running count of utterance starts: the utterance each line belongs to (1-based;
        -- 0 for continuation lines before the first prefixed line)
        count(line_role) over (
            partition by conversation_id
            order by line_number
            rows between unbounded preceding and current row
        ) as utterance_number
    from lines_classified

),

utterances as (

    select
        conversation_id,
        utterance_number,
        max(line_role) as role,
        -- trim surrounding whitespace, newlines of blank continuation lines included
        {{ regexp_replace_all(
            string_agg_ordered('line_text_without_prefix', 'chr(10)', 'line_number'),
            '^\\s+|\\s+$', ''
        ) }} as text,
        count(*) as n_lines
    from lines_grouped
    group by conversation_id, utterance_number

),

final as (

    select
        ----------  ids
        conversation_id,

        ----------  strings
        role,
        text,

        ----------  numerics
        cast(
            row_number() over (partition by conversation_id order by utterance_number) - 1
            as integer
        ) as turn_index,
        -- index among the conversation's user turns only: the upstream "utterance" index
        cast(
            case
                when role = 'user' then
                    row_number() over (
                        partition by conversation_id, role = 'user' order by utterance_number
                    ) - 1
            end
            as integer
        ) as user_turn_index,
        cast(n_lines as integer) as n_lines

    from utterances
    -- drop utterances that are nothing but blank lines (e.g. a trailing newline)
    where text <> '' or role is not null

)

select * from final
