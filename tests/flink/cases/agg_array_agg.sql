-- Flink docs: docs/dev/table/functions/systemFunctions.md (aggregate functions): ARRAY_AGG, NULLs
-- respected, with FILTER, per group
CREATE TABLE t (k STRING, v INT, s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/array_agg.jsonl', 'format' = 'json');
SELECT k, ARRAY_AGG(v), ARRAY_AGG(s) FILTER (WHERE v > 0) FROM t GROUP BY k;
