-- Flink docs: docs/dev/table/sql/queries/joins.md (a join feeding an aggregate)
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
SELECT c.city, COUNT(*) AS orders, SUM(o.amount) AS units
FROM Orders o JOIN Customers c ON o.customer = c.name
GROUP BY c.city;
