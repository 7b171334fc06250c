-- COUNT(*) over the docs' EXCEPT (docs/dev/table/sql/queries/set-ops.md): the set
-- operation gives {c}: 1 rows, in both engines (the ALL forms
-- setops_count_except_all and setops_count_intersect_all are Flink 1.20.3's bug)
CREATE TABLE t1 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t1.jsonl', 'format' = 'json');
CREATE TABLE t2 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t2.jsonl', 'format' = 'json');
SELECT COUNT(*) AS c FROM ((SELECT s FROM t1) EXCEPT (SELECT s FROM t2));
