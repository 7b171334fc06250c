-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), IF, IFNULL, GREATEST, LEAST
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
SELECT id, IF(j > 5, 'big', 'small'), IFNULL(s, 'none'), IFNULL(j, i), GREATEST(i, j), LEAST(i, j), LEAST(s, t)
FROM f;
