{#-
    Spark implementation of json_type_of (macros/json.sql), on the Spark form of a JSON value
    (macros/engine/json_text.sql: a string value comes without its quotes): the type of the
    text parsed as JSON, 'VARCHAR' when it does not parse. So a string that reads as JSON
    (e.g. "12") is typed by its content (UBIGINT), where DuckDB says VARCHAR; an integer is
    UBIGINT when not negative, as in DuckDB.
-#}
{% macro spark__json_type_of(json_expr) -%}
    case
        when {{ json_expr }} is not null then
            case split_part(coalesce(schema_of_variant(try_parse_json({{ json_expr }})), 'VARCHAR'), '<', 1)
                when 'STRING' then 'VARCHAR'
                when 'VOID' then 'NULL'
                when 'OBJECT' then 'OBJECT'
                when 'ARRAY' then 'ARRAY'
                when 'BOOLEAN' then 'BOOLEAN'
                when 'BIGINT' then case when ltrim({{ json_expr }}) like '-%' then 'BIGINT' else 'UBIGINT' end
                when 'VARCHAR' then 'VARCHAR'
                else 'DOUBLE'
            end
    end
{%- endmacro %}
