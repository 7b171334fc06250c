-- A JSON number that does not fit the column's DECIMAL(10, 3): Flink 1.20 reads it as NULL
-- silently; sluice stops with an error naming the file, line and field (docs/semantics.md §4,
-- or skips the row with 'json.ignore-parse-errors').
-- deliberate: a value that does not fit its DECIMAL column is bad input in sluice; Flink reads NULL
CREATE TABLE n (id INT, d DECIMAL(10, 3))
WITH ('connector' = 'filesystem', 'path' = '$DATA/decimal_range.jsonl', 'format' = 'json');
SELECT id, d FROM n;
