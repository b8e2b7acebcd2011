with

source as (

    select * from {{ source('convsearch', 'search_behaviors') }}

),

{#- Memory: each `->>` parses the payload again and DuckDB keeps every
    parse of a 2048-row chunk until the chunk is done. One from_json reads the fields (as text,
    so the casts below see what `->>` gave) and one json_array_length both lengths; the values
    are the same. -#}
parsed as (

    select
        source.*,
        {{ json_struct('payload', {'id': 'VARCHAR', 'belong_dialog': 'VARCHAR', 'belong_turn': 'VARCHAR', 'query_string': 'VARCHAR', 'source': 'VARCHAR', 'time': 'VARCHAR'}) }} as fields,
        {{ json_array_lengths('payload', ['$.serp_pagelogs', '$.landingpage_pagelogs']) }} as pagelogs_lengths
    from source

),

renamed as (

    select
        ----------  ids
        fields.id as query_id,
        fields.belong_dialog as dialog_id,
        fields.belong_turn as turn_id,

        ----------  strings
        fields.query_string as query_string,
        fields.source as source_engine,
        source_path,

        ----------  numerics
        cast({{ array_at('pagelogs_lengths', 1) }} as integer) as n_serp_pagelogs,
        cast({{ array_at('pagelogs_lengths', 2) }} as integer) as n_landing_pagelogs,
        record_index,

        ----------  timestamps (upstream: float seconds since the epoch, UTC)
        {{ timestamp_from_micros("cast(cast(fields.time as double) * 1000000 as bigint)") }} as queried_at,
        ingested_at

    from parsed

)

select * from renamed
