with

source as (

    select * from {{ source('crsarena', 'dialogues') }}

),

unnested as (

    select
        {{ json_text('source.payload', '$."conversation ID"') }} as dialogue_id,
        utterances.utterance,
        utterances.utterance_number
    from source
    {{ unnest_join(
        json_list('source.payload', '$.conversation[*]'), 'utterances', 'utterance', 'utterance_number'
    ) }}

),

renamed as (

    select
        ----------  ids
        {{ json_text('utterance', '$."utterance ID"') }} as utterance_id,
        dialogue_id,

        ----------  strings
        {{ json_text('utterance', '$.participant') }} as participant,
        {{ json_text('utterance', '$.utterance') }} as utterance_text,

        ----------  numerics
        -- 0-based position of the utterance in the dialogue's conversation array
        cast(utterance_number - 1 as integer) as utterance_position

    from unnested

)

select * from renamed
