-- Flink docs: docs/dev/table/sql/queries/topn.md
CREATE TABLE ShopSales (
  product_id   STRING,
  category     STRING,
  product_name STRING,
  sales        BIGINT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/shop_sales.jsonl', 'format' = 'json');
SELECT *
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS row_num
  FROM ShopSales)
WHERE row_num <= 5;
