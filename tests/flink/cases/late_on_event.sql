-- Late rows with a watermark per row ('scan.watermark.emit.strategy' = 'on-event', what
-- sluice always does, docs/semantics.md §1): 09:00:05 comes after W = 09:00:12 and is late in both.
CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = '$DATA/late_rows.jsonl', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');
SELECT window_start, window_end, SUM(v) AS total, COUNT(*) AS cnt
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
