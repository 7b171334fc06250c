-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), OVERLAPS
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
SELECT id, (ts, INTERVAL '1' HOUR) OVERLAPS (TIMESTAMP '2021-03-14 15:30:00', INTERVAL '1' HOUR),
  (TIME '2:55:00', INTERVAL '1' HOUR) OVERLAPS (TIME '3:30:00', INTERVAL '2' HOUR)
FROM f;
