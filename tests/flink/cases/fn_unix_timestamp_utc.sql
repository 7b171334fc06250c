-- Flink docs: docs/data/sql_functions.yml (UNIX_TIMESTAMP(string1[, string2])) examples,
-- session time zone UTC (issue 8, wrong answer 4)
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE f (id INT) WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id, UNIX_TIMESTAMP('2023-05-04 12:00:00'),
  UNIX_TIMESTAMP('1970-01-01 08:00:01.001', 'yyyy-MM-dd HH:mm:ss.SSS'),
  UNIX_TIMESTAMP('1970-01-01 08:00:01.001 +0800', 'yyyy-MM-dd HH:mm:ss.SSS X'),
  UNIX_TIMESTAMP('1970-01-01 08:00:01.001 +0800', 'yyyy-MM-dd HH:mm:ss.SSS'),
  UNIX_TIMESTAMP('2021/03/14 15:09', 'yyyy/MM/dd HH:mm'),
  UNIX_TIMESTAMP('not a time'), UNIX_TIMESTAMP('not a time', 'yyyy'), UNIX_TIMESTAMP(CAST(NULL AS STRING))
FROM f WHERE id = 1;
