{#-
    CoSRec items: every document judged in qrels.qrels. Recommendation judgments are on
    Amazon products (ASINs); search judgments on MS MARCO v2.1 passages.
-#}

with

qrels as (

    select * from {{ ref('stg_cosrec__qrels') }}

),

judged_documents as (

    select distinct doc_id
    from qrels

),

final as (

    select
        cast({{ global_id('cosrec', 'doc_id') }} as string) as item_id,
        cast('cosrec' as string) as corpus,
        cast(doc_id as string) as source_item_id,
        cast(
            case when substr(doc_id, 1, 8) = 'msmarco_' then 'passage' else 'product' end
            as string
        ) as item_kind,
        -- the dataset ships ids only (no catalogue or passage text)
        cast(null as string) as title,
        cast(null as string) as description,
        cast(null as string) as category,
        cast(null as string) as url
    from judged_documents

)

select * from final
