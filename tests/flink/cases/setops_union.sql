-- Flink docs: docs/dev/table/sql/queries/set-ops.md (UNION; t1 and t2 as files)
CREATE TABLE t1 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t1.jsonl', 'format' = 'json');
CREATE TABLE t2 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t2.jsonl', 'format' = 'json');
(SELECT s FROM t1) UNION (SELECT s FROM t2);
