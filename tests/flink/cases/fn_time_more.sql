-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), temporal functions sluice lacks
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
SELECT id, YEAR(dt), QUARTER(dt), MONTH(dt), WEEK(dt), DAYOFYEAR(dt), DAYOFMONTH(dt), DAYOFWEEK(dt),
  HOUR(ts), MINUTE(ts), SECOND(ts)
FROM f;
