-- LAG in streaming OVER aggregates (Flink's LagAggFunction): offsets, a
-- default, strings, beside SUM over the same (default) window
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
SELECT order_id, category, amount,
  LAG(amount) OVER w AS prev_amount,
  LAG(amount, 2, -1) OVER w AS prev2,
  LAG(customer) OVER w AS prev_customer,
  SUM(amount) OVER w AS total
FROM Orders
WINDOW w AS (PARTITION BY category ORDER BY order_time);
