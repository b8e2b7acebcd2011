with

source as (

    select * from {{ source('crsarena', 'dialogues') }}

),

unnested as (

    select
        source.payload ->> '$."conversation ID"' as dialogue_id,
        utterances.utterance,
        utterances.utterance_number
    from source
    cross join
        unnest(cast(source.payload -> '$.conversation[*]' as json[]))
        with ordinality as utterances (utterance, utterance_number)

),

renamed as (

    select
        ----------  ids
        utterance ->> '$."utterance ID"' as utterance_id,
        dialogue_id,

        ----------  strings
        utterance ->> '$.participant' as participant,
        utterance ->> '$.utterance' as utterance_text,

        ----------  numerics
        -- 0-based position of the utterance in the dialogue's conversation array
        cast(utterance_number - 1 as integer) as utterance_position

    from unnested

)

select * from renamed
