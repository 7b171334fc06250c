-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), numeric functions in docs/sql.md
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
SELECT id, i + j, i - j, i * 2, j / 2, d * j, d / 4, d + x, -d, MOD(j, 4), MOD(i, 5), ABS(j), ABS(d),
  ROUND(d, 1), ROUND(d, 0), ROUND(x, 2), FLOOR(d), CEIL(d), FLOOR(x), CEIL(x), POWER(j, 2), SQRT(ABS(x)),
  LN(ABS(x) + 1), LOG10(ABS(x) + 1), EXP(j / 4)
FROM f;
