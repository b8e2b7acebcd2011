{#- CoSRec utterances in the conformed contract (docs/ARCHITECTURE.md). -#}

with

turns_split as (

    select * from {{ ref('int_cosrec__turns_split') }}

),

final as (

    select
        cast({{ global_id('cosrec', 'conversation_id') }} as string) as conversation_id,
        cast(turn_index as integer) as turn_index,
        cast(role as string) as role,
        cast(text as string) as text,
        cast(null as string) as text_translation,
        cast(null as timestamp) as created_at,
        cast(false as boolean) as is_image,
        -- the upstream refers to user utterances by their index among user utterances
        cast(user_turn_index as string) as source_turn_id
    from turns_split

)

select * from final
