-- Flink docs: docs/dev/table/sql/queries/limit.md and topn.md (ORDER BY a non-time column with LIMIT: a global Top-N)
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
SELECT order_id, amount
FROM Orders
ORDER BY amount DESC, order_id
LIMIT 3;
