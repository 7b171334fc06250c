-- Flink docs: docs/dev/table/timezone.md (windows over TIMESTAMP_LTZ, session zone Asia/Shanghai)
SET 'table.local-time-zone' = 'Asia/Shanghai';
CREATE TABLE MyTable2 (
    item STRING,
    price DOUBLE,
    ts BIGINT,
    ts_ltz AS TO_TIMESTAMP_LTZ(ts, 3),
    WATERMARK FOR ts_ltz AS ts_ltz - INTERVAL '10' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/ltz.csv', 'format' = 'csv');
SELECT
   TUMBLE_START(ts_ltz, INTERVAL '10' MINUTES) AS window_start,
   TUMBLE_END(ts_ltz, INTERVAL '10' MINUTES) AS window_end,
   TUMBLE_ROWTIME(ts_ltz, INTERVAL '10' MINUTES) as window_rowtime,
   item,
   MAX(price) as max_price
FROM MyTable2
GROUP BY TUMBLE(ts_ltz, INTERVAL '10' MINUTES), item;
