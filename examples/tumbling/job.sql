-- The seed tutorial's tumbling scenario (a Python streaming-ETL tutorial
-- sluice started from, not part of this repository): 10-second
-- tumbling windows, SUM(amount).  Expected: 09:00:00 -> 10, 09:00:10 -> 20,
-- 09:00:20 -> 5, 09:00:30 -> 8.
CREATE TABLE events (
    user_id STRING,
    amount INT,
    event_time TIMESTAMP(3),
    WATERMARK FOR event_time AS event_time
) WITH ('connector' = 'filesystem', 'path' = 'examples/data/tutorial_events.jsonl', 'format' = 'json');

SELECT window_start, SUM(amount) AS total
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(event_time), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
