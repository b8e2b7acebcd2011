with

source as (

    select * from {{ source('convsearch', 'dialogs') }}

),

unnested as (

    select
        source.payload ->> '$.id' as dialog_id,
        turns.turn,
        turns.turn_number
    from source
    cross join
        unnest(cast(source.payload -> '$.turns[*]' as json[]))
        with ordinality as turns (turn, turn_number)

),

renamed as (

    select
        ----------  ids
        turn ->> '$.id' as turn_id,
        dialog_id,

        ----------  strings
        turn ->> '$.initiator' as initiator,
        turn ->> '$.content' as content,
        nullif(turn ->> '$.image_name', '') as image_name,
        -- assessor labels, one per external assessor ('' = no label)
        cast(turn ->> '$."intent-primary-class"[*]' as varchar[]) as intent_primary_classes,
        cast(turn ->> '$."intent-secondary-class"[*]' as varchar[]) as intent_secondary_classes,
        cast(turn ->> '$."action-primary-class"[*]' as varchar[]) as action_primary_classes,
        cast(turn ->> '$."action-secondary-class"[*]' as varchar[]) as action_secondary_classes,

        ----------  numerics
        -- 0-based position in the dialogue's turns array (upstream sorts it by time)
        cast(turn_number - 1 as integer) as turn_position,
        -- 0..4; satisfaction/understand on agent turns (by the user),
        -- clarity/difficulty on user turns (by the agent)
        cast(turn ->> '$."satisfaction-turn"' as double) as satisfaction_turn,
        cast(turn ->> '$."understand-turn"' as double) as understand_turn,
        cast(turn ->> '$."clarity-turn"' as double) as clarity_turn,
        cast(turn ->> '$."difficulty-turn"' as double) as difficulty_turn,

        ----------  booleans
        cast(turn ->> '$.is_image' as boolean) as is_image,

        ----------  timestamps (upstream: float seconds since the epoch, UTC)
        make_timestamp(cast(cast(turn ->> '$.time' as double) * 1000000 as bigint)) as created_at

    from unnested

)

select * from renamed
