-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), CAST and TRY_CAST
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
SELECT id, CAST(i AS STRING), CAST(d AS STRING), CAST(x AS STRING), CAST(b AS STRING), CAST(ts AS STRING),
  CAST(dt AS STRING), CAST(d AS INT), CAST(x AS BIGINT), CAST(j AS DECIMAL(5, 1)), CAST(d AS DOUBLE),
  CAST(ts AS DATE), CAST(dt AS TIMESTAMP(3)), TRY_CAST(s AS INT), TRY_CAST('12' AS INT),
  CAST(CAST(j AS STRING) AS INT), CAST(j AS TINYINT), CAST(x AS FLOAT)
FROM f;
