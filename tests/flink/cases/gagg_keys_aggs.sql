-- Flink docs: docs/dev/table/sql/queries/group-agg.md (aggregate functions per key)
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
SELECT category, COUNT(*) AS cnt, COUNT(amount) AS cnt_amount, SUM(amount) AS units,
       SUM(price * amount) AS revenue, AVG(price) AS avg_price, MIN(product) AS first_product,
       MAX(order_time) AS last_time, COUNT(DISTINCT customer) AS customers
FROM Orders
GROUP BY category;
