-- Flink docs: docs/dev/table/sql/queries/set-ops.md (EXISTS)
CREATE TABLE t1 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t1.jsonl', 'format' = 'json');
CREATE TABLE t2 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t2.jsonl', 'format' = 'json');
SELECT s FROM t1 WHERE EXISTS (SELECT s FROM t2 WHERE t1.s = t2.s);
