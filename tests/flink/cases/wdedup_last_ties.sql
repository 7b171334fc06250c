-- Window deduplication keeping the last row (docs/dev/table/sql/queries/window-deduplication.md):
-- of rows with equal event times Flink keeps the last arrival (ids 3 and 5; random case
-- seed 12 #55 of gen.py's second generation found sluice keeping the first)
CREATE TABLE t (
    id INT,
    k STRING,
    ts TIMESTAMP(3),
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/wdedup_ties.jsonl', 'format' = 'json');
SELECT window_start, window_end, id, k, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY ts DESC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rn = 1;
