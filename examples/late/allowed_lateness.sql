-- The late scenario with one minute of allowed lateness (sluice extension):
-- each late row corrects the closed window instead of being dropped:
-- -U 30 / +U 33, then -U 33 / +U 132.
CREATE TABLE orders (
    user_id STRING,
    amount DECIMAL(10, 2),
    event_time TIMESTAMP(3),
    WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'examples/data/tutorial_late.jsonl', 'format' = 'json');

SELECT TUMBLE_START(event_time, INTERVAL '10' SECOND) AS window_start, SUM(amount) AS total
FROM orders
GROUP BY TUMBLE(event_time, INTERVAL '10' SECOND)
ALLOWED LATENESS INTERVAL '1' MINUTE;
