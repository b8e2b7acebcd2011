{#-
    Spark implementation of json_without_keys (macros/json.sql): the object's other entries in
    document order (from_json keeps it), each value re-serialised from a variant (to_json), so
    a nested object's keys come out sorted (DuckDB keeps their order).
-#}
{% macro spark__json_without_keys(json_expr, keys) -%}
    concat('{', array_join(transform(
        filter(
            map_keys(from_json({{ json_expr }}, 'map<string,string>')),
            csrwh_key -> not array_contains(array({%- for key in keys %}'{{ key }}'{{ ", " if not loop.last }}{%- endfor %}), csrwh_key)
        ),
        csrwh_key -> concat(
            regexp_extract(to_json(array(csrwh_key)), '^\[(.*)\]$', 1),
            ':',
            to_json(cast(parse_json({{ json_expr }}) as map<string, variant>)[csrwh_key])
        )
    ), ','), '}')
{%- endmacro %}
