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
        cast({{ global_id('cosrec', 'doc_id') }} as varchar) as item_id,
        cast('cosrec' as varchar) as corpus,
        cast(doc_id as varchar) as source_item_id,
        cast(
            case when doc_id like 'msmarco\_%' escape '\' then 'passage' else 'product' end
            as varchar
        ) as item_kind,
        -- the dataset ships ids only (no catalogue or passage text)
        cast(null as varchar) as title,
        cast(null as varchar) as description,
        cast(null as varchar) as category,
        cast(null as varchar) as url
    from judged_documents

)

select * from final
