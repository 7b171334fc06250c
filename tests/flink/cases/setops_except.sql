-- Flink docs: docs/dev/table/sql/queries/set-ops.md (EXCEPT)
-- The changelog depends on which input is read first (sluice: t1, so a and b are inserted, then
-- deleted as t2 arrives); the final result does not.
-- changelog: none
CREATE TABLE t1 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t1.jsonl', 'format' = 'json');
CREATE TABLE t2 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t2.jsonl', 'format' = 'json');
(SELECT s FROM t1) EXCEPT (SELECT s FROM t2);
