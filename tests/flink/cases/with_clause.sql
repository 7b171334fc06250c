-- Flink docs: docs/dev/table/sql/queries/with.md
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
WITH orders_with_total AS (
    SELECT order_id, price * amount AS total
    FROM Orders
)
SELECT order_id, SUM(total)
FROM orders_with_total
GROUP BY order_id;
