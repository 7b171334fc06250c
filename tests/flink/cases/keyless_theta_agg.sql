-- Flink docs: docs/dev/table/sql/queries/joins.md: a non-equi RIGHT join against an
-- updating input (a GROUP BY)
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
SELECT t.customer, t.total, c.name FROM (SELECT customer, SUM(amount) AS total FROM Orders GROUP BY customer) t RIGHT JOIN Customers c ON t.total >= c.tier * 3;
