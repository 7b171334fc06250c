-- Window Top-N (not a deduplication: N = 2) ordered by the event time DESC: ties keep
-- arrival order in Flink's window rank (ids 2 and 3 for a in the first window)
CREATE TABLE t (
    id INT,
    k STRING,
    ts TIMESTAMP(3),
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/wdedup_ties.jsonl', 'format' = 'json');
SELECT window_start, window_end, id, k, ts, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY ts DESC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rn <= 2;
