-- One row per turn x assessor x primary/secondary label; empty labels ('') are skipped.

with

source as (

    select * from {{ source('convsearch', 'dialogs') }}

),

{#- Memory: the payload is parsed once, by one from_json that keeps
    only the turn ids and label lists, and every unnest is in a select list. A lateral
    `cross join unnest(...)` is decorrelated by DuckDB into a hash join on its input (here the
    whole payload, then every turn); with one `->>` per label field that did not fit in 1 GiB at
    sample x300. Same rows. -#}
dialogs as (

    select
        {{ json_struct('payload', {'id': 'VARCHAR', 'turns': [{'id': 'VARCHAR', 'intent-primary-class': ['VARCHAR'], 'intent-secondary-class': ['VARCHAR'], 'action-primary-class': ['VARCHAR'], 'action-secondary-class': ['VARCHAR']}]}) }} as dialog
    from source

),

turns as (

    select
        dialog.id as dialog_id,
        {{ unnest_list('dialog.turns') }} as turn
    from dialogs

),

label_fields as (

    select
        dialog_id,
        turn.id as turn_id,
        {{ unnest_structs([
            {'label_field': "'intent-primary-class'", 'labels': 'turn.' ~ adapter.quote('intent-primary-class')},
            {'label_field': "'intent-secondary-class'", 'labels': 'turn.' ~ adapter.quote('intent-secondary-class')},
            {'label_field': "'action-primary-class'", 'labels': 'turn.' ~ adapter.quote('action-primary-class')},
            {'label_field': "'action-secondary-class'", 'labels': 'turn.' ~ adapter.quote('action-secondary-class')},
        ]) }} as label_array
    from turns

),

unnested as (

    select
        dialog_id,
        turn_id,
        label_array.label_field as label_field,
        -- two lists of the same length unnest side by side: each label with its position
        {{ unnest_with_index('label_array.labels', 'raw_label', 'assessor_number', start=1) }}
    from label_fields

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
