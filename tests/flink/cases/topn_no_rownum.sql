-- Flink docs: docs/dev/table/sql/queries/topn.md (No Ranking Output Optimization)
CREATE TABLE ShopSales (
  product_id   STRING,
  category     STRING,
  product_name STRING,
  sales        BIGINT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/shop_sales.jsonl', 'format' = 'json');
SELECT product_id, category, product_name, sales
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS row_num
  FROM ShopSales)
WHERE row_num <= 2;
