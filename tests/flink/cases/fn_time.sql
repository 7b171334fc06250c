-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), temporal functions in docs/sql.md
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
SELECT id, EXTRACT(YEAR FROM ts), EXTRACT(MONTH FROM ts), EXTRACT(DAY FROM ts), EXTRACT(HOUR FROM ts),
  EXTRACT(MINUTE FROM ts), EXTRACT(SECOND FROM ts), EXTRACT(DOW FROM dt), EXTRACT(DOY FROM dt),
  FLOOR(ts TO HOUR), CEIL(ts TO MINUTE), FLOOR(ts TO DAY), FLOOR(ts TO MONTH),
  DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss'), DATE_FORMAT(ts, 'yy/M/d H.m.s.SSS'), DATE_FORMAT(ts, 'EEE MMM'),
  ts + INTERVAL '1' DAY, ts - INTERVAL '90' MINUTE, dt + INTERVAL '1' MONTH,
  TIMESTAMPADD(HOUR, 25, ts), TIMESTAMPDIFF(DAY, ts, TIMESTAMP '2024-01-01 00:00:00'),
  TIMESTAMPDIFF(MONTH, dt, DATE '2024-03-01'), TO_TIMESTAMP('2021-03-14 15:09:26'),
  TO_TIMESTAMP('14/03/2021 15:09', 'dd/MM/yyyy HH:mm'), TO_DATE('2021-03-14'), TO_DATE('20210314', 'yyyyMMdd'),
  TO_TIMESTAMP_LTZ(1618968000000, 3), TO_TIMESTAMP_LTZ(1618968000, 0),
  UNIX_TIMESTAMP('2021-03-14 15:09:26'), UNIX_TIMESTAMP('2021/03/14', 'yyyy/MM/dd')
FROM f;
