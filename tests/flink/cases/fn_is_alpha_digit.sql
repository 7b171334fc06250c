-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), IS_ALPHA, IS_DIGIT, IS_DECIMAL
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
SELECT id, IS_DIGIT(CAST(j AS STRING)), IS_ALPHA(s), IS_DECIMAL(CAST(d AS STRING)) FROM f;
