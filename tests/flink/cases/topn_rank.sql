-- Flink docs: docs/dev/table/sql/queries/topn.md (RANK)
-- Flink 1.20 runs only ROW_NUMBER Top-N in streaming (StreamExecRank); sluice runs it (docs/sql.md)
-- deliberate: sluice extension: RANK Top-N, which Flink 1.20 refuses in streaming
-- both-refuse: RANK() on streaming table is not supported currently
CREATE TABLE ShopSales (
  product_id   STRING,
  category     STRING,
  product_name STRING,
  sales        BIGINT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/shop_sales.jsonl', 'format' = 'json');
SELECT *
FROM (
  SELECT *,
    RANK() OVER (PARTITION BY category ORDER BY sales DESC) AS rk
  FROM ShopSales)
WHERE rk <= 3;
