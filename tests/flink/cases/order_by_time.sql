-- Flink docs: docs/dev/table/sql/queries/orderby.md (streaming: sorted on a time attribute, ascending, first)
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
SELECT order_id, customer, order_time
FROM Orders
ORDER BY order_time, order_id;
