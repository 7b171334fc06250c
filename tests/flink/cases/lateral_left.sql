-- Flink: LEFT JOIN LATERAL ... ON TRUE over a correlated SELECT with FROM (orders
-- without a customer row padded with NULL; the items computed before the join)
-- changelog: none
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
CREATE TABLE Customers (
    name STRING,
    city STRING,
    tier INT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/customers.jsonl', 'format' = 'json');
SELECT o.order_id, x.city, x.t FROM Orders o LEFT JOIN LATERAL (SELECT c.city, COALESCE(c.tier, 0) AS t FROM Customers c WHERE c.name = o.customer AND c.city <> 'Paris') AS x ON TRUE;
