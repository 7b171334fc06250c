-- LAG over the default RANGE frame (Flink's LagAggFunction under
-- RowTimeRangeUnboundedPrecedingFunction): rows of one rowtime are all
-- accumulated before any is emitted
CREATE TABLE T (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'filesystem', 'path' = '$DATA/lag_ties.jsonl', 'format' = 'json');
SELECT k, v, ts, LAG(v) OVER (PARTITION BY k ORDER BY ts) AS prev1,
  LAG(v, 2, 0) OVER (PARTITION BY k ORDER BY ts) AS prev2
FROM T;
