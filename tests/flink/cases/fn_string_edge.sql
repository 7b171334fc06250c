-- Flink docs: docs/dev/table/functions/systemFunctions.md (string functions), edge values:
-- non-ASCII text, empty strings, positions out of range, LIKE with ESCAPE
CREATE TABLE f (id INT, s STRING, t STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id, UPPER(s), LOWER(s), CHAR_LENGTH(s), SUBSTRING(s, 0, 3), SUBSTRING(s, 4, 100), SUBSTRING(s, 20),
  SUBSTRING(s, -3), POSITION('' IN s), POSITION('l' IN s), TRIM(t), LPAD(s, 3, ''), LPAD(s, 0, 'x'),
  RPAD(s, 12, 'ab'), REPLACE(s, '', 'x'), REPLACE(s, 'l', ''), s LIKE '%!_%' ESCAPE '!', s LIKE 'c_f%',
  SPLIT_INDEX(s, 'l', 2), SPLIT_INDEX(s, 'l', 9), REGEXP_EXTRACT(s, '(l+)', 1), REGEXP_REPLACE(s, 'l+', ''),
  CONCAT_WS(',', s, t), MD5(''), CHAR_LENGTH(t), t = '', s IS DISTINCT FROM t
FROM f;
