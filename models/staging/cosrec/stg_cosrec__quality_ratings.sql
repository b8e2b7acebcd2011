with

source as (

    select * from {{ source('cosrec', 'quality') }}

),

annotators as (

    select
        source.record_key as conversation_id,
        source.source_path,
        annotator_ratings.ratings,
        annotator_ratings.annotator_number
    from source
    {{ unnest_join(
        json_list(cosrec_keyed_value('source.payload')), 'annotator_ratings', 'ratings', 'annotator_number'
    ) }}

),

aspects as (

    select
        annotators.conversation_id,
        annotators.source_path,
        annotators.annotator_number,
        aspect_ratings.entry.key as aspect,
        aspect_ratings.entry.value as rating
    from annotators
    {{ unnest_join(parse_json_object_entries('annotators.ratings'), 'aspect_ratings', 'entry') }}

),

renamed as (

    select
        ----------  ids
        conversation_id || '#' || (annotator_number - 1) || '#' || aspect as quality_rating_id,
        conversation_id,

        ----------  strings
        regexp_extract(source_path, '^dataset/([^/]+)/', 1) as partition_name,
        aspect,

        ----------  numerics
        -- 0-based position of the annotator in the conversation's list of ratings
        cast(annotator_number - 1 as integer) as annotator_index,
        cast({{ json_text('rating') }} as integer) as rating_value

    from aspects

)

select * from renamed
