-- LAG with a default whose lagged value is NULL: sluice returns that NULL (the default
-- is for a row that is not there, as in the SQL standard and PostgreSQL); Flink 1.20.3
-- returns the default for an INT (-1) and an empty string for a STRING (row 3)
-- deliberate: Flink 1.20.3's LAG with a default replaces a NULL value (docs/sql.md)
CREATE TABLE t (id INT, n INT, k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '$DATA/lag_nulls.jsonl', 'format' = 'json');
SELECT id, LAG(n, 1, -1) OVER w AS vn, LAG(n) OVER w AS vn0, LAG(k, 1, 'none') OVER w AS vk,
  LAG(k) OVER w AS vk0
FROM t WINDOW w AS (ORDER BY ts);
