-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), HEX, BIN, TO_BASE64, FROM_BASE64
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
SELECT id, HEX(i), HEX(s), BIN(j), TO_BASE64(s), FROM_BASE64(TO_BASE64(s)) FROM f;
