{#-
    The label scheme of each own corpus ('custom:<name>', as int_custom__intents_conformed
    names it), declared for user and system messages alike: an own corpus may label either
    side (docs/ADDING_A_CORPUS.md).
-#}

with

conversations as (

    select * from {{ ref('int_custom__conversations') }}

),

corpora as (

    select distinct corpus_name from conversations

),

roles as (

    select 'user' as labelled_role
    union all
    select 'system' as labelled_role

),

final as (

    select
        -- strings
        cast('custom' as string) as corpus,
        {{ global_id('custom', 'corpora.corpus_name') }} as label_scheme,
        cast(roles.labelled_role as string) as labelled_role,
        cast('Labels of the own corpus ' || corpora.corpus_name || ', on either side' as string)
            as description
    from corpora
    cross join roles

)

select * from final
