-- Flink docs: docs/dev/table/sql/queries/joins.md (Interval Joins, the docs' comma form)
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
CREATE TABLE Shipments (
    ship_id INT,
    order_id INT,
    ship_time TIMESTAMP(3),
    WATERMARK FOR ship_time AS ship_time - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/shipments.jsonl', 'format' = 'json');
SELECT *
FROM Orders o, Shipments s
WHERE o.order_id = s.order_id
AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time;
