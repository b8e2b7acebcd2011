-- One row per item a user selected in one of the three selection steps of a round
-- (upstream selected1, selected2, selected3: lists of product ids).

with

source as (

    select * from {{ source('recoreact', 'impressions') }}

),

selection_lists as (

    select
        source_path,
        {{ json_text('payload', '$.iid') }} as impression_id,
        {{ json_text('payload', '$.uid') }} as user_id,
        {{ unnest_structs([
            {'selection_step': '1', 'product_ids': json_text_list('payload', '$.selected1')},
            {'selection_step': '2', 'product_ids': json_text_list('payload', '$.selected2')},
            {'selection_step': '3', 'product_ids': json_text_list('payload', '$.selected3')},
        ]) }} as selection
    from source

),

unnested as (

    select
        selection_lists.source_path,
        selection_lists.impression_id,
        selection_lists.user_id,
        selection_lists.selection.selection_step,
        selected.product_id,
        selected.selection_number
    from selection_lists
    {{ unnest_join(
        'selection_lists.selection.product_ids', 'selected', 'product_id', 'selection_number'
    ) }}

),

renamed as (

    select
        ----------  ids
        impression_id,
        user_id,
        product_id,

        ----------  strings
        regexp_extract(source_path, '([a-z]+)-impressions\.jsonl$', 1) as domain,

        ----------  numerics
        cast(selection_step as integer) as selection_step,
        -- 1-based position of the item in the upstream selection list
        cast(selection_number as integer) as selection_position

    from unnested

)

select * from renamed
