-- A JSON null in a column declared NOT NULL: Flink 1.20.3 reads it and computes with a value that
-- is not there (b IS NULL is FALSE, COALESCE(b, 7) is -1); sluice stops the job with an input
-- error naming the field and the line (docs/semantics.md §4).
-- deliberate: a NULL in a NOT NULL column is bad input in sluice; Flink reads it as garbage
CREATE TABLE t (a INT, b INT NOT NULL) WITH ('connector' = 'filesystem', 'path' = '$DATA/notnull_null.jsonl', 'format' = 'json');
SELECT a, b IS NULL, COALESCE(b, 7) FROM t;
