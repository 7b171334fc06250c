-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), JSON functions
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
SELECT id, JSON_VALUE(js, '$.c'), JSON_QUERY(js, '$.a.b'), JSON_EXISTS(js, '$.a'), js IS JSON,
  JSON_OBJECT(KEY 'k' VALUE s), JSON_ARRAY(i, s)
FROM f;
