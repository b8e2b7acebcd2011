{#-
    Spark implementation of json_object_text (macros/json.sql). A value is a SQL expression
    (written as JSON the way to_json writes it, NULL as null: DuckDB's json_object keeps NULL
    fields, to_json drops them unless told), {'json': expr} for a JSON value, or
    {'json_list': expr} for a list of JSON values (embedded as JSON, not as text; on Spark
    in the form macros/engine/json_text.sql documents).
-#}
{% macro spark__json_object_text(keys_and_values) -%}
    concat(
        '{',
        {%- for item in keys_and_values %}
        {%- if loop.index is odd %}
        '{{ "," if not loop.first }}"{{ item }}":',
        {%- elif item is mapping and 'json' in item %}
        {{ csrwh_spark_json_of_value(item['json']) }},
        {%- elif item is mapping %}
        concat('[', array_join(transform({{ item['json_list'] }}, csrwh_item -> {{ csrwh_spark_json_of_value('csrwh_item') }}), ','), ']'),
        {%- else %}
        regexp_extract(to_json(named_struct('v', {{ item }}), map('ignoreNullFields', 'false')), '^\{"v":(.*)\}$', 1),
        {%- endif %}
        {%- endfor %}
        '}'
    )
{%- endmacro %}

{#-
    A JSON value (Spark form: a string without its quotes) as JSON text: an object or array
    re-serialised (get_json_object keeps key order and writes no spaces, as DuckDB does),
    other JSON as is, NULL as null, and text that does not parse as JSON quoted.
-#}
{% macro csrwh_spark_json_of_value(expr) -%}
    case
        when {{ expr }} is null then 'null'
        when try_parse_json({{ expr }}) is null
            then regexp_extract(to_json(array({{ expr }})), '^\[(.*)\]$', 1)
        when left(ltrim({{ expr }}), 1) in ('{', '[') then get_json_object({{ expr }}, '$')
        else trim({{ expr }})
    end
{%- endmacro %}
