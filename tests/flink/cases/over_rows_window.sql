-- Flink docs: docs/dev/table/sql/queries/over-agg.md (WINDOW clause, ROWS)
CREATE TABLE Orders (
    order_id INT,
    customer STRING,
    product STRING,
    category STRING,
    amount INT,
    price DECIMAL(10, 2),
    order_time TIMESTAMP(3),
    WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/orders.jsonl', 'format' = 'json');
SELECT order_id, order_time, amount,
  SUM(amount) OVER w AS sum_amount,
  AVG(amount) OVER w AS avg_amount,
  COUNT(*) OVER w AS cnt
FROM Orders
WINDOW w AS (
  PARTITION BY category
  ORDER BY order_time
  ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);
