with

source as (

    select * from {{ source('convsearch', 'dialogs') }}

),

{#- Memory: the payload is parsed once, by one from_json that keeps
    only the turn fields (as text, so the casts below see what `->>` gave), and the turns are
    unnested in the select list. A lateral `cross join unnest(...)` is decorrelated by DuckDB
    into a hash join on the whole payload, and one `->>` per field re-parsed each turn; that
    did not fit in 1 GiB at sample x300. Same rows. -#}
dialogs as (

    select
        {{ json_struct('payload', {'id': 'VARCHAR', 'turns': [{'id': 'VARCHAR', 'initiator': 'VARCHAR', 'content': 'VARCHAR', 'image_name': 'VARCHAR', 'intent-primary-class': ['VARCHAR'], 'intent-secondary-class': ['VARCHAR'], 'action-primary-class': ['VARCHAR'], 'action-secondary-class': ['VARCHAR'], 'satisfaction-turn': 'VARCHAR', 'understand-turn': 'VARCHAR', 'clarity-turn': 'VARCHAR', 'difficulty-turn': 'VARCHAR', 'is_image': 'VARCHAR', 'time': 'VARCHAR'}]}) }} as dialog
    from source

),

unnested as (

    select
        dialog.id as dialog_id,
        -- two lists of the same length unnest side by side: each turn with its position
        {{ unnest_with_index('dialog.turns', 'turn', 'turn_position') }}
    from dialogs

),

renamed as (

    select
        ----------  ids
        turn.id as turn_id,
        dialog_id,

        ----------  strings
        turn.initiator as initiator,
        turn.content as content,
        nullif(turn.image_name, '') as image_name,
        -- assessor labels, one per external assessor ('' = no label); an absent field (or one
        -- that is not a list) gives an empty list
        coalesce(turn.{{ adapter.quote('intent-primary-class') }}, {{ empty_text_list() }}) as intent_primary_classes,
        coalesce(turn.{{ adapter.quote('intent-secondary-class') }}, {{ empty_text_list() }}) as intent_secondary_classes,
        coalesce(turn.{{ adapter.quote('action-primary-class') }}, {{ empty_text_list() }}) as action_primary_classes,
        coalesce(turn.{{ adapter.quote('action-secondary-class') }}, {{ empty_text_list() }}) as action_secondary_classes,

        ----------  numerics
        -- 0-based position in the dialogue's turns array (upstream sorts it by time)
        cast(turn_position as integer) as turn_position,
        -- 0..4; satisfaction/understand on agent turns (by the user),
        -- clarity/difficulty on user turns (by the agent)
        cast(turn.{{ adapter.quote('satisfaction-turn') }} as double) as satisfaction_turn,
        cast(turn.{{ adapter.quote('understand-turn') }} as double) as understand_turn,
        cast(turn.{{ adapter.quote('clarity-turn') }} as double) as clarity_turn,
        cast(turn.{{ adapter.quote('difficulty-turn') }} as double) as difficulty_turn,

        ----------  booleans
        cast(turn.is_image as boolean) as is_image,

        ----------  timestamps (upstream: float seconds since the epoch, UTC)
        {{ timestamp_from_micros("cast(cast(turn.time as double) * 1000000 as bigint)") }} as created_at

    from unnested

)

select * from renamed
