-- COUNT(*) over the docs' INTERSECT ALL (docs/dev/table/sql/queries/set-ops.md): the set
-- operation gives {a, b, b}: 3 rows; found by make test-flink,
-- gen.py's second generation, seed 12 #12.  Flink 1.20.3 answers 5: it prunes the
-- column the count does not read from the set operation's inputs, so every row is equal
-- and it counts |t1| - |t2| (EXCEPT ALL) or min(|t1|, |t2|) (INTERSECT ALL) rows
-- deliberate: Flink 1.20.3 prunes the set operation's column under COUNT(*) (docs/sql.md)
-- changelog: none
CREATE TABLE t1 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t1.jsonl', 'format' = 'json');
CREATE TABLE t2 (s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/t2.jsonl', 'format' = 'json');
SELECT COUNT(*) AS c FROM ((SELECT s FROM t1) INTERSECT ALL (SELECT s FROM t2));
