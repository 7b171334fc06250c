-- NTILE in a streaming OVER aggregate: Flink refuses it (AggFunctionFactory)
-- both-refuse: NTILE Function is not supported in stream mode
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
SELECT order_id, NTILE(2) OVER (PARTITION BY category ORDER BY order_time) FROM Orders;
