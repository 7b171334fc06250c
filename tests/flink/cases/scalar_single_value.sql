-- Flink: a scalar subquery that is no aggregate, returning one row (SINGLE_VALUE)
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
SELECT o.order_id, (SELECT c.city FROM Customers c WHERE c.name = 'bob') AS bob_city FROM Orders o WHERE o.amount > 2;
