{#-
    The value of a CoSRec one-key JSON line {"<conversation id>": value}, read without
    knowing (or escaping) the key: the first element of the `$.*` wildcard.
    cosrec_keyed_value('{"CoSRec-Crowd_4": [1, 2]}') = '[1,2]' (JSON).
-#}
{% macro cosrec_keyed_value(payload) -%}
    {{ return(adapter.dispatch('cosrec_keyed_value', 'csrwh')(payload)) }}
{%- endmacro %}

{% macro default__cosrec_keyed_value(payload) -%}
    (json_extract({{ payload }}, '$.*')[1])
{%- endmacro %}
