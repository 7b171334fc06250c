-- The late scenario with the late rows diverted, unchanged, to a side table
-- (sluice extension: ON LATE INSERT INTO).
CREATE TABLE orders (
    user_id STRING,
    amount DECIMAL(10, 2),
    event_time TIMESTAMP(3),
    WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'examples/data/tutorial_late.jsonl', 'format' = 'json');

CREATE TABLE late_orders (
    user_id STRING,
    amount DECIMAL(10, 2),
    event_time TIMESTAMP(3)
) WITH ('connector' = 'print', 'print-identifier' = 'late_orders');

SELECT TUMBLE_START(event_time, INTERVAL '10' SECOND) AS window_start, SUM(amount) AS total
FROM orders
GROUP BY TUMBLE(event_time, INTERVAL '10' SECOND)
ON LATE INSERT INTO late_orders;
