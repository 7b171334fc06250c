-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), numeric functions not in docs/sql.md yet
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
SELECT id, SIGN(j), TRUNCATE(d, 1), LOG2(ABS(x) + 1), LOG(2, ABS(x) + 1), PI(), E(), SIN(x), COS(x),
  TAN(x), ATAN2(x, 2), DEGREES(x), RADIANS(x)
FROM f;
