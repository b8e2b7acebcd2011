{#- CoSRec crowd quality ratings (conversation level) in the conformed contract. -#}

with

quality_ratings as (

    select * from {{ ref('stg_cosrec__quality_ratings') }}

),

final as (

    select
        cast({{ global_id('cosrec', 'conversation_id') }} as string) as conversation_id,
        cast(null as integer) as turn_index,
        cast(null as string) as item_id,
        cast('crowd' as string) as rater_kind,
        -- annotators are anonymous: one rater per conversation and position
        cast(conversation_id || '#' || annotator_index as string) as rater_id,
        cast(aspect as string) as aspect,
        cast(rating_value as double) as value,
        cast(null as string) as raw_value,
        cast(null as string) as comment
    from quality_ratings

)

select * from final
