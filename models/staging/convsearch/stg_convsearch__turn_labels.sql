-- One row per turn x assessor x primary/secondary label; empty labels ('') are skipped.

with

source as (

    select * from {{ source('convsearch', 'dialogs') }}

),

turns as (

    select
        source.payload ->> '$.id' as dialog_id,
        turns.turn
    from source
    cross join unnest(cast(source.payload -> '$.turns[*]' as json[])) as turns (turn)

),

label_fields as (

    select
        turns.dialog_id,
        turns.turn ->> '$.id' as turn_id,
        unnest([
            {
                'label_field': 'intent-primary-class',
                'labels': turns.turn ->> '$."intent-primary-class"[*]'
            },
            {
                'label_field': 'intent-secondary-class',
                'labels': turns.turn ->> '$."intent-secondary-class"[*]'
            },
            {
                'label_field': 'action-primary-class',
                'labels': turns.turn ->> '$."action-primary-class"[*]'
            },
            {
                'label_field': 'action-secondary-class',
                'labels': turns.turn ->> '$."action-secondary-class"[*]'
            }
        ]) as label_array
    from turns

),

unnested as (

    select
        label_fields.dialog_id,
        label_fields.turn_id,
        label_fields.label_array.label_field,
        assessor_labels.raw_label,
        assessor_labels.assessor_number
    from label_fields
    cross join unnest(label_fields.label_array.labels) with ordinality as assessor_labels (raw_label, assessor_number)

),

renamed as (

    select
        ----------  ids
        dialog_id,
        turn_id,

        ----------  strings
        -- intent (user turns) or action (agent turns)
        split_part(label_field, '-', 1) as label_kind,
        label_field,
        raw_label,

        ----------  numerics
        -- 1-based position of the assessor in the upstream three-label arrays
        cast(assessor_number as integer) as assessor_index,

        ----------  booleans
        label_field like '%-primary-class' as is_primary

    from unnested
    where raw_label is not null
        and raw_label != ''

)

select * from renamed
