-- Flink docs: docs/dev/table/sql/queries/set-ops.md (EXCEPT ALL)
-- Flink's changes come from its rewrite (an aggregate and a table function: +U per
-- count); only the final result is compared.
-- changelog: none
CREATE TABLE t1 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t1.jsonl', 'format' = 'json');
CREATE TABLE t2 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t2.jsonl', 'format' = 'json');
(SELECT s FROM t1) EXCEPT ALL (SELECT s FROM t2);
