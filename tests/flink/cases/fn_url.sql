-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), PARSE_URL
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
SELECT id, PARSE_URL(url, 'HOST'), PARSE_URL(url, 'PATH'), PARSE_URL(url, 'QUERY', 'k2'), PARSE_URL(url, 'PROTOCOL')
FROM f;
