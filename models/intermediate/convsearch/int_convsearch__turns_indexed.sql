-- ConvSearch turns with their conformed conversation id and a 0-based turn_index ordered by
-- turn time, then turn id (upstream already sorts turns by time).

with

turns as (

    select * from {{ ref('stg_convsearch__turns') }}

),

indexed as (

    select
        ----------  ids
        'convsearch:' || dialog_id as conversation_id,
        dialog_id,
        turn_id,

        ----------  strings
        initiator,
        content,
        image_name,

        ----------  numerics
        cast(
            row_number() over (
                partition by dialog_id
                order by created_at, try_cast(turn_id as bigint), turn_id
            ) - 1 as integer
        ) as turn_index,
        satisfaction_turn,
        understand_turn,
        clarity_turn,
        difficulty_turn,

        ----------  booleans
        is_image,

        ----------  timestamps
        created_at

    from turns

)

select * from indexed
