{#- Spark implementation of json_object_agg_text (macros/json.sql): JSON text built from the ordered (key, value) entries. -#}
{% macro spark__json_object_agg_text(key_expr, value_expr, order_by) -%}
    concat('{', array_join(transform(
        array_sort(collect_list(
            named_struct('o', {{ order_by }}, 'k', {{ key_expr }}, 'v', {{ value_expr }})
        ) filter (where {{ value_expr }} is not null)),
        csrwh_entry -> concat(
            regexp_extract(to_json(array(csrwh_entry.k)), '^\[(.*)\]$', 1),
            ':',
            {{ csrwh_spark_json_of_value('csrwh_entry.v') }}
        )
    ), ','), '}')
{%- endmacro %}
