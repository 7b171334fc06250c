-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), SHA1, SHA2, SHA256
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
SELECT id, SHA1(s), SHA256(s), SHA2(s, 224) FROM f;
