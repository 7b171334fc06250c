-- Flink docs: docs/dev/table/functions/systemFunctions.md (JSON_VALUE ... RETURNING INT) on a JSON
-- string that is not a number ("x"): Flink 1.20.3 fails the job with a ClassCastException
-- (String cannot be cast to Integer; RETURNING DOUBLE of "7" likewise) although the default is NULL ON ERROR.
-- deliberate: Flink 1.20 bug: JSON_VALUE RETURNING INT of a non-numeric string throws ClassCastException
CREATE TABLE j (id INT, js STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/json_docs.jsonl', 'format' = 'json');
SELECT id, JSON_VALUE(js, '$.c' RETURNING INT), JSON_VALUE(js, '$.n' RETURNING DOUBLE) FROM j;
