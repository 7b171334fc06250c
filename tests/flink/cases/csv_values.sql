-- Flink docs: docs/connectors/table/formats/csv.md: quoted fields with the delimiter and doubled
-- quotes, empty fields (no 'csv.null-literal'), booleans in both cases, numbers in E notation
CREATE TABLE t (id INT, s STRING, d DECIMAL(10, 2), b BOOLEAN, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = '$DATA/csv_values.csv', 'format' = 'csv');
SELECT id, s, CHAR_LENGTH(s), d, b, ts FROM t;
