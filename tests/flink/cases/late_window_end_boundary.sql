-- docs/semantics.md §1: Flink SQL closes a window at W >= end - 1 ms, sluice at W >= end.
-- 09:00:09.998 arrives with W = 09:00:09.999 = end - 1 ms of [09:00:00, 09:00:10): late for Flink,
-- counted by sluice.
-- deliberate: sluice closes windows 1 ms later than Flink SQL (docs/semantics.md §1)
CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = '$DATA/late_boundary.jsonl', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');
SELECT window_start, SUM(v) AS total
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
