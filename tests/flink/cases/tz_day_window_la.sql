-- Flink docs: docs/dev/table/timezone.md (a 1-day window aligned in the session zone, America/Los_Angeles)
SET 'table.local-time-zone' = 'America/Los_Angeles';
CREATE TABLE MyTable2 (
    item STRING,
    price DOUBLE,
    ts BIGINT,
    ts_ltz AS TO_TIMESTAMP_LTZ(ts, 3),
    WATERMARK FOR ts_ltz AS ts_ltz - INTERVAL '10' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/ltz.csv', 'format' = 'csv');
SELECT window_start, window_end, window_time, COUNT(*) AS cnt, SUM(price) AS total
FROM TABLE(TUMBLE(TABLE MyTable2, DESCRIPTOR(ts_ltz), INTERVAL '1' DAY))
GROUP BY window_start, window_end, window_time;
