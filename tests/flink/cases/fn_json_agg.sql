-- Flink 1.20 docs/data/sql_functions.yml (aggregate): JSON_ARRAYAGG / JSON_OBJECTAGG with NULL / ABSENT ON NULL, over a group aggregate; STDDEV
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
SELECT b, JSON_ARRAYAGG(i), JSON_ARRAYAGG(s NULL ON NULL), JSON_OBJECTAGG(KEY CAST(id AS STRING) VALUE x),
  JSON_OBJECTAGG(CAST(id AS STRING) VALUE JSON_OBJECT('ts' VALUE ts) ABSENT ON NULL), STDDEV(x)
FROM f GROUP BY b;
