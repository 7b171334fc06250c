-- Flink docs: docs/dev/table/functions/systemFunctions.md (arithmetic functions), edge values:
-- integer division and MOD of negatives, ROUND half-up of DECIMAL and DOUBLE, DECIMAL division
-- scales, DOUBLE division by zero, casts that truncate
CREATE TABLE n (id INT, i INT, j INT, d DECIMAL(10, 3), e DECIMAL(10, 3), x DOUBLE, y DOUBLE)
WITH ('connector' = 'filesystem', 'path' = '$DATA/nums.jsonl', 'format' = 'json');
SELECT id, i / j, MOD(i, j), i % j, -i / j, ROUND(d, 0), ROUND(e, 0), ROUND(e, 2), ROUND(x, 2), ROUND(x, 0),
  ROUND(x, -1), d / e, d / 3, i / NULLIF(d, 0), d * e, d + e, x / NULLIF(y, 0), x * y, CAST(d AS INT), CAST(e AS INT),
  CAST(x AS INT), CAST(x AS DECIMAL(10, 1)), CAST(e AS DECIMAL(4, 1)), FLOOR(e), CEIL(e), ABS(i),
  CAST(i AS BIGINT) * 2, POWER(j, 3), SQRT(y)
FROM n;
