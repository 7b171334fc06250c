-- Flink docs: docs/dev/table/sql/queries/limit.md (ORDER BY a time attribute with LIMIT)
-- changelog: ordered
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
SELECT order_id, order_time
FROM Orders
ORDER BY order_time
LIMIT 3;
