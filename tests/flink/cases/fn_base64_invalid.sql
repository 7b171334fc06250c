-- Flink docs: docs/dev/table/functions/systemFunctions.md (FROM_BASE64) on text that is not
-- base64: Flink 1.20 fails the job ("Illegal base64 character 20"); sluice stops with an error
-- naming the value.
-- both-refuse: Illegal base64 character
CREATE TABLE f (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id, FROM_BASE64(s) FROM f;
