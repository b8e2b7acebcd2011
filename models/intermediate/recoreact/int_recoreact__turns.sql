-- RecoReact turn sequence. A conversation is one user's three-round session in one domain.
-- Only user texts exist: per round the request, update1 and update2 (each followed by a slate
-- of 12 items the assistant showed, whose contents are not in the data) and the summary.
-- Turns are the non-NULL texts in round order, then request, update1, update2, summary;
-- no system turns are invented.

with

impressions as (

    select * from {{ ref('stg_recoreact__impressions') }}

),

texts as (

    select
        domain,
        user_id,
        impression_id,
        round,
        {{ unnest_structs([
            {'round_step': '0', 'text_field': "'request'", 'text': 'request'},
            {'round_step': '1', 'text_field': "'update1'", 'text': 'update1'},
            {'round_step': '2', 'text_field': "'update2'", 'text': 'update2'},
            {'round_step': '3', 'text_field': "'summary'", 'text': 'summary'},
        ]) }} as round_text
    from impressions

),

flattened as (

    select
        domain,
        user_id,
        impression_id,
        round,
        round_text.round_step,
        round_text.text_field,
        round_text.text
    from texts
    where round_text.text is not null

),

indexed as (

    select
        ----------  ids
        'recoreact:' || domain || ':' || user_id as conversation_id,
        impression_id,
        user_id,

        ----------  strings
        domain,
        text_field,
        text,

        ----------  numerics
        cast(
            row_number() over (
                partition by domain, user_id
                order by round, round_step, impression_id
            ) - 1 as integer
        ) as turn_index,
        round,
        cast(round_step as integer) as round_step

    from flattened

)

select * from indexed
