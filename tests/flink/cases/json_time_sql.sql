-- Flink docs: docs/connectors/table/formats/json.md ('json.timestamp-format.standard' = 'SQL'):
-- TIMESTAMP(6), TIMESTAMP_LTZ(3), DATE and TIME values read from JSON, in a non-UTC session zone
SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ts TIMESTAMP(6), ltz TIMESTAMP_LTZ(3), dt DATE, tm TIME(0))
WITH ('connector' = 'filesystem', 'path' = '$DATA/json_time_sql.jsonl', 'format' = 'json',
      'json.timestamp-format.standard' = 'SQL');
SELECT id, ts, ltz, dt, tm, CAST(ts AS STRING), CAST(ltz AS STRING), EXTRACT(HOUR FROM ltz) FROM t;
