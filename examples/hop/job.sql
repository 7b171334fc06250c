-- The tutorial's exercise: 10-second windows sliding every 5 seconds over
-- the tumbling scenario's events.  Each event lands in two windows, so the
-- emitted totals add up to twice the raw sum (2 * 43 = 86).
CREATE TABLE events (
    user_id STRING,
    amount INT,
    event_time TIMESTAMP(3),
    WATERMARK FOR event_time AS event_time
) WITH ('connector' = 'filesystem', 'path' = 'examples/data/tutorial_events.jsonl', 'format' = 'json');

SELECT window_start, window_end, SUM(amount) AS total
FROM TABLE(HOP(TABLE events, DESCRIPTOR(event_time), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
