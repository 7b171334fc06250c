-- A JSON number -0.0 in a DOUBLE column: Flink 1.20's json format reads it through BigDecimal,
-- which has no negative zero, and gets 0.0; sluice keeps the IEEE value -0.0 (it prints -0.0 and
-- 1 / x is -Infinity).
-- deliberate: sluice reads -0.0 from JSON as -0.0; Flink as 0.0
CREATE TABLE n (id INT, x DOUBLE) WITH ('connector' = 'filesystem', 'path' = '$DATA/negzero.jsonl', 'format' = 'json');
SELECT id, x, x * 2 FROM n;
