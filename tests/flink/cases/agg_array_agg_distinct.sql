-- Flink docs: docs/dev/table/functions/systemFunctions.md (aggregate functions): ARRAY_AGG(DISTINCT x)
-- over values with repeats and a NULL (one NULL kept). Flink 1.20.3 emits a -U/+U pair of the same
-- array when a repeated value leaves the result unchanged (its ARRAY results compare unequal);
-- sluice emits nothing then, so only the final result is compared.
-- changelog: none
CREATE TABLE t (k STRING, v INT, s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/array_agg.jsonl', 'format' = 'json');
SELECT k, ARRAY_AGG(DISTINCT v) FROM t GROUP BY k;
