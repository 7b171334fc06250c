-- Flink docs: docs/connectors/table/formats/csv.md: 'csv.field-delimiter', 'csv.quote-character',
-- 'csv.allow-comments', 'csv.null-literal'
CREATE TABLE t (id INT, s STRING, n INT)
WITH ('connector' = 'filesystem', 'path' = '$DATA/csv_options.csv', 'format' = 'csv',
      'csv.field-delimiter' = ';', 'csv.quote-character' = '''', 'csv.allow-comments' = 'true',
      'csv.null-literal' = 'n/a');
SELECT id, s, n FROM t;
