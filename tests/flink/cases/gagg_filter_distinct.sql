-- Flink docs: docs/dev/table/sql/queries/group-agg.md (FILTER and DISTINCT together)
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
SELECT category, COUNT(DISTINCT customer) FILTER (WHERE amount > 2) AS big_buyers,
       SUM(amount) FILTER (WHERE price < 2) AS cheap_units,
       COUNT(*) FILTER (WHERE customer IS NULL) AS anonymous
FROM Orders
GROUP BY category;
