-- Flink 1.20 DateTimeUtils: DATE_FORMAT of a TIMESTAMP uses DateTimeFormatter's letters (u = year, F, Q, e, n), of a string SimpleDateFormat's (u = weekday, F = ordinal, S = millis); EXTRACT's sub-second units; TIMESTAMPDIFF in months (docs/sql.md "Date patterns and EXTRACT units")
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
SELECT id, DATE_FORMAT(ts, 'G uuuu-LL-dd u F YYYY-ww W Q QQQ e E S SSS n'),
  DATE_FORMAT(CAST(ts AS STRING), 'yyyy-MM-dd u F w W Y S'),
  EXTRACT(MILLISECOND FROM ts), EXTRACT(MICROSECOND FROM ts), EXTRACT(NANOSECOND FROM ts),
  TIMESTAMPDIFF(MONTH, ts, TIMESTAMP '2024-02-29 12:00:00'), TIMESTAMPDIFF(YEAR, ts, TIMESTAMP '2024-02-29 12:00:00')
FROM f;
