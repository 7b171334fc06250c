-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), temporal functions not in docs/sql.md yet
-- xfail: not supported yet: YEAR, QUARTER, MONTH, WEEK, DAYOFYEAR, DAYOFMONTH, DAYOFWEEK, HOUR, MINUTE, SECOND, FROM_UNIXTIME, CONVERT_TZ, OVERLAPS
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
  HOUR(ts), MINUTE(ts), SECOND(ts), FROM_UNIXTIME(1618968000), CONVERT_TZ('2021-04-21 01:20:00', 'UTC', 'Asia/Shanghai'),
  (ts, INTERVAL '1' HOUR) OVERLAPS (TIMESTAMP '2021-03-14 15:30:00', INTERVAL '1' HOUR)
FROM f;
