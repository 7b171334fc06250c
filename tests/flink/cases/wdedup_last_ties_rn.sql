-- wdedup_last_ties with the row number in the output (Flink still plans a window
-- deduplication: rn <= 1 is the constant 1)
CREATE TABLE t (
    id INT,
    k STRING,
    ts TIMESTAMP(3),
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/wdedup_ties.jsonl', 'format' = 'json');
SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY ts DESC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rn <= 1;
