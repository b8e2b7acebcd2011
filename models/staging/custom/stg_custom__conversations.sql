{{ config(materialized="table") }}
{#-
    One row per line of custom/<name>/*.jsonl (docs/ADDING_A_CORPUS.md): the conversation's
    fields typed and renamed. Nothing is dropped: `other_fields` keeps every part of the record
    no other column or model reads (metadata, keys the format does not know, system messages,
    unknown message keys), which becomes conversations.source_attributes.

    A table, not a view, and one parse: the
    payload is parsed once into a map of its keys (each value as JSON text) and the messages
    once more into a list of maps; every column below is cut from those maps. DuckDB keeps
    every JSON parse of a 2,048-row chunk until the chunk is done, so the old view -- one parse
    per field and per message part, read again by every downstream model -- ran out of 1 GiB on
    28 MB of conversations.
-#}

with

source as (

    -- in eight slices: each parse below holds an eighth of a chunk of lines (macros/in_slices.sql)
    select * from {{ in_slices(source('custom', 'conversations'), 'record_key') }}

),

{{ custom_conversation_fields('source') }}

select * from renamed
