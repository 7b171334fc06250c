-- Flink docs: docs/dev/table/sql/queries/deduplication.md (on event time, keep the first row)
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
SELECT order_id, customer, product, amount, order_time
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY order_time ASC) AS row_num
  FROM Orders)
WHERE row_num = 1;
