-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), conditional functions
CREATE TABLE f (
    id INT,
    s STRING,
    t STRING,
    i INT,
    j INT,
    d DECIMAL(10, 3),
    x DOUBLE,
    b BOOLEAN,
    ts TIMESTAMP(3),
    dt DATE,
    url STRING,
    js STRING
) WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id, CASE WHEN j > 5 THEN 'big' WHEN j > 0 THEN 'small' ELSE 'other' END,
  CASE j WHEN 13 THEN 'thirteen' WHEN 1 THEN 'one' END, COALESCE(s, t, 'none'), NULLIF(j, 1),
  j IS NULL, b IS TRUE, b IS NOT FALSE, b IS UNKNOWN, j IS DISTINCT FROM 3, j BETWEEN 0 AND 10,
  j NOT BETWEEN SYMMETRIC 10 AND 0, j IN (1, 3, 13), s NOT IN ('x', 'y'), NOT b, b AND j > 2, b OR j > 2
FROM f;
