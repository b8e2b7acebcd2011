{#- A timestamp (no time zone) from microseconds since the epoch: timestamp_from_micros('cast(t * 1000000 as bigint)'). -#}
{% macro timestamp_from_micros(micros_expr) -%}
    {{ return(adapter.dispatch('timestamp_from_micros', 'csrwh')(micros_expr)) }}
{%- endmacro %}

{% macro default__timestamp_from_micros(micros_expr) -%}
    make_timestamp({{ micros_expr }})
{%- endmacro %}

{#- timestamp_micros is a session-zone timestamp; the profile's session zone is UTC. -#}
{% macro spark__timestamp_from_micros(micros_expr) -%}
    cast(timestamp_micros({{ micros_expr }}) as timestamp_ntz)
{%- endmacro %}

{#- A timestamp (no time zone) from milliseconds since the epoch: timestamp_from_millis('cast(t as bigint)'). -#}
{% macro timestamp_from_millis(millis_expr) -%}
    {{ return(adapter.dispatch('timestamp_from_millis', 'csrwh')(millis_expr)) }}
{%- endmacro %}

{% macro default__timestamp_from_millis(millis_expr) -%}
    epoch_ms({{ millis_expr }})
{%- endmacro %}

{% macro spark__timestamp_from_millis(millis_expr) -%}
    cast(timestamp_millis({{ millis_expr }}) as timestamp_ntz)
{%- endmacro %}
