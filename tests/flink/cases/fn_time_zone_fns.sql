-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), FROM_UNIXTIME and CONVERT_TZ
-- (the docs' examples: FROM_UNIXTIME(44) in UTC and Asia/Tokyo, CONVERT_TZ to America/Los_Angeles)
SET 'table.local-time-zone' = 'Asia/Tokyo';
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
SELECT id, FROM_UNIXTIME(44), FROM_UNIXTIME(1618968000, 'yyyy-MM-dd HH:mm'),
  CONVERT_TZ('1970-01-01 00:00:00', 'UTC', 'America/Los_Angeles'), CONVERT_TZ('2021-04-21 01:20:00', 'UTC', 'Asia/Shanghai')
FROM f WHERE id = 1;
