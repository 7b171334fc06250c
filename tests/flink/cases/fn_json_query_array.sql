-- Flink docs: docs/dev/table/functions/systemFunctions.md, JSON_QUERY ... RETURNING
-- ARRAY<STRING> (the documented example 'lax $.a[*].c' -> ['c1', 'c2']) with wrappers,
-- scalars, objects, nested values and the ON EMPTY / ON ERROR clauses
CREATE TABLE f (
    id INT, s STRING, t STRING, i INT, j INT, d DECIMAL(10, 3), x DOUBLE, b BOOLEAN,
    ts TIMESTAMP(3), dt DATE, url STRING, js STRING
) WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id,
  JSON_QUERY('{"a":[{"c":"c1"},{"c":"c2"}]}', 'lax $.a[*].c' RETURNING ARRAY<STRING>),
  JSON_QUERY(js, '$' RETURNING ARRAY<STRING>),
  JSON_QUERY(js, 'lax $.a.b' RETURNING ARRAY<STRING>),
  JSON_QUERY(js, 'lax $.a' RETURNING ARRAY<STRING>),
  JSON_QUERY(js, 'lax $.a' RETURNING ARRAY<STRING> WITH CONDITIONAL ARRAY WRAPPER),
  JSON_QUERY(js, 'lax $.c' RETURNING ARRAY<STRING> WITH UNCONDITIONAL ARRAY WRAPPER),
  JSON_QUERY(js, 'lax $[*]' RETURNING ARRAY<STRING>),
  JSON_QUERY(js, 'lax $.missing' RETURNING ARRAY<STRING> EMPTY ARRAY ON EMPTY),
  JSON_QUERY('[1.50, true, null, "x\"y", {"k": [1, 2]}, [3]]', '$' RETURNING ARRAY<STRING>),
  JSON_QUERY('{"a": 1}', 'strict $.a' RETURNING ARRAY<STRING> EMPTY ARRAY ON ERROR)
FROM f;
