-- Flink docs: docs/dev/table/sql/queries/group-agg.md (GROUPING SETS)
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
SELECT category, product, SUM(amount) AS units
FROM Orders
GROUP BY GROUPING SETS ((category, product), (category), ());
