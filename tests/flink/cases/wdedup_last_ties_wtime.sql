-- wdedup_last_ties ordered by window_time DESC: every row of a window ties, so the
-- window deduplication keeps the last arrival (id 7 for a in the first window)
CREATE TABLE t (
    id INT,
    k STRING,
    ts TIMESTAMP(3),
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/wdedup_ties.jsonl', 'format' = 'json');
SELECT window_start, window_end, id, k, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY window_time DESC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rn = 1;
