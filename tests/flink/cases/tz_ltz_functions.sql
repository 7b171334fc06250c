-- Flink docs: docs/dev/table/timezone.md (TIMESTAMP_LTZ values and conversions in a non-UTC zone)
SET 'table.local-time-zone' = 'America/Los_Angeles';
CREATE TABLE MyTable2 (
    item STRING,
    price DOUBLE,
    ts BIGINT,
    ts_ltz AS TO_TIMESTAMP_LTZ(ts, 3),
    WATERMARK FOR ts_ltz AS ts_ltz - INTERVAL '10' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/ltz.csv', 'format' = 'csv');
SELECT item, ts_ltz, CAST(ts_ltz AS TIMESTAMP(3)), CAST(ts_ltz AS STRING), DATE_FORMAT(ts_ltz, 'yyyy-MM-dd HH:mm'),
  TO_TIMESTAMP_LTZ(ts, 3), EXTRACT(HOUR FROM ts_ltz), FLOOR(ts_ltz TO HOUR), CAST(TIMESTAMP '2021-04-21 01:20:00' AS TIMESTAMP_LTZ(3)),
  UNIX_TIMESTAMP('2021-04-21 01:20:00')
FROM MyTable2;
