-- A column compared with itself in WHERE: for the NULL row d = d and NOT (d <> d) are
-- NULL (the select list of both engines says so), so the row is filtered out; Flink
-- 1.20.3 keeps it (its planner simplifies x = x to TRUE in a filter). Found by make
-- test-flink seed 12 #84 (WHERE NOT (d <> d) under a Top-N).
-- deliberate: Flink 1.20.3 keeps the NULL row of WHERE d = d (docs/sql.md)
CREATE TABLE t (id INT, d DECIMAL(10, 2), n INT) WITH ('connector' = 'filesystem', 'path' = '$DATA/self_compare.jsonl', 'format' = 'json');
SELECT id, d = d AS c, NOT (d <> d) AS nc FROM t WHERE d = d OR NOT (n <> n);
