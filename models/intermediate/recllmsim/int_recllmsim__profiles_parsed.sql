{#- RecLLMSim real-human `profile` and `questionnaire` as JSON text. Released files hold them
    as JSON objects / arrays; some exports hold the same values as Python-repr strings
    ("{'gender': 'Male', 'age': 24, ...}"), which are not JSON (single quotes, True/None).
    csrwh_repr_json turns both into canonical JSON text (a JSON value is kept, a string is
    parsed with ast.literal_eval, falling back to json.loads; anything else gives NULL) and
    csrwh_repr_json_status says how; Python functions the build registers on its engine
    (csrwh/dbt_support/udfs.py). One row per conversation. -#}
{{ config(materialized="table") }}

with

conversations as (

    select
        conversation_id,
        cast(profile as string) as profile,
        cast(questionnaire as string) as questionnaire
    from {{ ref('stg_recllmsim__conversations') }}

)

select
    conversation_id,
    csrwh_repr_json_status(profile) as profile_parse_status,
    csrwh_repr_json_status(questionnaire) as questionnaire_parse_status,
    csrwh_repr_json(profile) as profile_json,
    csrwh_repr_json(questionnaire) as questionnaire_json
from conversations
