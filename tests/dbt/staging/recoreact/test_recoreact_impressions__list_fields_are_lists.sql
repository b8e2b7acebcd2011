-- depends_on: {{ ref('stg_recoreact__impressions') }}
-- Staging reads selected1..3 and categories as JSON lists; a scalar would silently give no
-- rows, so every such field present in a raw impression must be a list.
select
    source_path,
    record_index,
    record_key
from {{ source('recoreact', 'impressions') }}
where coalesce({{ json_type_of(json_get('payload', '$.selected1')) }}, 'ARRAY') not in ('ARRAY', 'NULL')
    or coalesce({{ json_type_of(json_get('payload', '$.selected2')) }}, 'ARRAY') not in ('ARRAY', 'NULL')
    or coalesce({{ json_type_of(json_get('payload', '$.selected3')) }}, 'ARRAY') not in ('ARRAY', 'NULL')
    or coalesce({{ json_type_of(json_get('payload', '$.categories')) }}, 'ARRAY') not in ('ARRAY', 'NULL')
