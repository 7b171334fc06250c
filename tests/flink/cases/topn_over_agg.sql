-- Flink docs: docs/dev/table/sql/queries/topn.md (Top-N over an updating aggregate)
CREATE TABLE ShopSales (
  product_id   STRING,
  category     STRING,
  product_name STRING,
  sales        BIGINT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/shop_sales.jsonl', 'format' = 'json');
SELECT *
FROM (
  SELECT category, product_id, total,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY total DESC) AS row_num
  FROM (SELECT category, product_id, SUM(sales) AS total FROM ShopSales GROUP BY category, product_id))
WHERE row_num <= 2;
