-- sluice: filters below a FULL join (docs/joins.md "Filters below a join"): a NULL-rejecting WHERE
-- conjunct moves, one that does not reject NULLs (COALESCE) stays above
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
SELECT o.order_id, o.customer, c.name, c.city
FROM Orders o
FULL JOIN Customers c
ON o.customer = c.name
WHERE o.category LIKE 'fr%' AND COALESCE(c.tier, 0) < 3;
