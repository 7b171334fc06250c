-- sluice: filters below an inner join (docs/joins.md "Filters below a join"): both WHERE conjuncts move
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
SELECT o.order_id, o.price, c.name, c.tier
FROM Orders o
JOIN Customers c
ON o.customer = c.name
WHERE c.tier = 2 AND o.price > 2;
