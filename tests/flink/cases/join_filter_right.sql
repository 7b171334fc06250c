-- sluice: filters below a RIGHT join (docs/joins.md "Filters below a join"): the ON conjunct on the
-- NULL-supplied left side and the WHERE on the preserved right side move
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
SELECT o.order_id, o.amount, c.name
FROM Orders o
RIGHT JOIN Customers c
ON o.customer = c.name AND o.amount > 2
WHERE c.tier >= 1;
