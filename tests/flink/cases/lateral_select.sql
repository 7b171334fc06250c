-- A LATERAL subquery that is a plain correlated SELECT without FROM: sluice computes it
-- over the rows before it (a Calc)
-- deliberate: Flink 1.20 fails on it (unexpected correlate variable $cor0); a sluice extension
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
SELECT o.order_id, l.total, l.who FROM Orders o, LATERAL (SELECT o.amount * o.price AS total, UPPER(o.customer) AS who) AS l;
