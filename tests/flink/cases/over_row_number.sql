-- ROW_NUMBER() as a streaming OVER aggregate, without a Top-N filter on it
-- (OverAggregateITCase.testRowNumberOnOver, over the rowtime here)
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
SELECT order_id, category, ROW_NUMBER() OVER (PARTITION BY category ORDER BY order_time) AS rn
FROM Orders;
