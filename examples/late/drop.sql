-- The tutorial's late scenario: watermark delay 5 s.  The 09:00:22 row moves
-- the watermark to 09:00:17 and closes [09:00:00, 09:00:10) with 30; the
-- 09:00:03 and 09:00:01 rows arrive after that and are late: dropped and
-- counted (see the summary on stderr).  [09:00:20, 09:00:30) -> 5 closes at
-- the end of the input.
CREATE TABLE orders (
    user_id STRING,
    amount DECIMAL(10, 2),
    event_time TIMESTAMP(3),
    WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'examples/data/tutorial_late.jsonl', 'format' = 'json');

SELECT TUMBLE_START(event_time, INTERVAL '10' SECOND) AS window_start, SUM(amount) AS total
FROM orders
GROUP BY TUMBLE(event_time, INTERVAL '10' SECOND);
