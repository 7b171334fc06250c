-- Flink docs: docs/dev/table/functions/systemFunctions.md (JSON functions, docs/data/sql_functions.yml):
-- JSON_VALUE with RETURNING and ON EMPTY / ON ERROR, JSON_QUERY wrappers, JSON_EXISTS, IS JSON
-- kinds, over objects, arrays, invalid text and NULL
CREATE TABLE j (id INT, js STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/json_docs.jsonl', 'format' = 'json');
SELECT id,
  JSON_VALUE(js, '$.c'),
  JSON_VALUE(js, '$.missing' DEFAULT 'dflt' ON EMPTY), JSON_VALUE(js, '$.a' NULL ON ERROR),
  JSON_VALUE(js, '$.t' RETURNING BOOLEAN), JSON_VALUE(js, '$[1]'), JSON_VALUE(js, '$.e'),
  JSON_QUERY(js, '$.a'), JSON_QUERY(js, '$.a.b'), JSON_QUERY(js, '$.c' WITH WRAPPER),
  JSON_QUERY(js, '$.a.b' WITH CONDITIONAL ARRAY WRAPPER), JSON_QUERY(js, '$[3]'),
  JSON_EXISTS(js, '$.a'), JSON_EXISTS(js, '$.a.b[5]'), JSON_EXISTS(js, '$[0]'),
  js IS JSON, js IS JSON OBJECT, js IS JSON ARRAY, js IS JSON SCALAR, js IS NOT JSON
FROM j;
