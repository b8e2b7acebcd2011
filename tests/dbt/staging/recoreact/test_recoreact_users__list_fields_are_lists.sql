-- depends_on: {{ ref('stg_recoreact__users') }}
-- Staging reads source_types, companions and frequency as JSON lists; a scalar would
-- silently become an empty list, so every such field present must be a list.
select
    source_path,
    record_index,
    record_key
from {{ source('recoreact', 'users') }}
where coalesce({{ json_type_of(json_get('payload', '$.source_types')) }}, 'ARRAY') not in ('ARRAY', 'NULL')
    or coalesce({{ json_type_of(json_get('payload', '$.companions')) }}, 'ARRAY') not in ('ARRAY', 'NULL')
    or coalesce({{ json_type_of(json_get('payload', '$.frequency')) }}, 'ARRAY') not in ('ARRAY', 'NULL')
