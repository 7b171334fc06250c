-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), encoding functions
-- xfail: not supported yet: HEX, BIN, TO_BASE64, FROM_BASE64, SHA1, SHA256
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
SELECT id, HEX(i), BIN(j), TO_BASE64(s), FROM_BASE64(TO_BASE64(s)), SHA1(s), SHA256(s) FROM f;
