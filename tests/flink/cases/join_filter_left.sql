-- sluice: filters below a LEFT join (docs/joins.md "Filters below a join"): the ON conjunct on the
-- NULL-supplied side, the WHERE on the preserved side and the NULL-rejecting WHERE on the other side move
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
SELECT o.order_id, o.amount, c.name, c.city
FROM Orders o
LEFT JOIN Customers c
ON o.customer = c.name AND c.tier < 3
WHERE o.amount > 1 AND c.city <> 'Paris';
