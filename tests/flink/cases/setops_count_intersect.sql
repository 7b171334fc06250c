-- COUNT(*) over the docs' INTERSECT (docs/dev/table/sql/queries/set-ops.md): the set
-- operation gives {a, b}: 2 rows, in both engines (the ALL forms
-- setops_count_except_all and setops_count_intersect_all are Flink 1.20.3's bug)
CREATE TABLE t1 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t1.jsonl', 'format' = 'json');
CREATE TABLE t2 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t2.jsonl', 'format' = 'json');
SELECT COUNT(*) AS c FROM ((SELECT s FROM t1) INTERSECT (SELECT s FROM t2));
