-- DOUBLE division by zero (Java semantics in Flink: Infinity, -Infinity, NaN; no error)
CREATE TABLE n (id INT, i INT, j INT, d DECIMAL(10, 3), e DECIMAL(10, 3), x DOUBLE, y DOUBLE)
WITH ('connector' = 'filesystem', 'path' = '$DATA/nums.jsonl', 'format' = 'json');
SELECT id, x / y, y / y, CAST(i AS DOUBLE) / 0.0 FROM n;
