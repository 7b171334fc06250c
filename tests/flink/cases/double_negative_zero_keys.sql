-- GROUP BY, DISTINCT and a join on DOUBLE keys -0.0 and 0.0.  Flink 1.20.3 groups -0.0 and 0.0
-- apart (its grouping compares the keys' bits) but joins them (1-3 all match) and its `=` says
-- -0.0 = 0.0; sluice keys by SQL equality everywhere, as PostgreSQL and DuckDB do: one group.
-- deliberate: GROUP BY and DISTINCT put DOUBLE -0.0 and 0.0 in one group; Flink in two
CREATE TABLE z (id INT, x DOUBLE)
WITH ('connector' = 'filesystem', 'path' = '$DATA/negzero_keys.jsonl', 'format' = 'json');
SELECT x, COUNT(*) AS c FROM z GROUP BY x;
SELECT a.id, b.id FROM z AS a JOIN z AS b ON a.x = b.x WHERE a.x = 0;
SELECT DISTINCT x FROM z;
