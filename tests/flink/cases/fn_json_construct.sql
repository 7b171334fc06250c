-- Flink docs: docs/dev/table/functions/systemFunctions.md (JSON_OBJECT, JSON_ARRAY, JSON_STRING):
-- NULL ON NULL / ABSENT ON NULL, nested constructors, numbers, booleans and strings needing escapes
CREATE TABLE f (id INT, s STRING, i INT, d DECIMAL(10, 3), x DOUBLE, b BOOLEAN)
WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id,
  JSON_OBJECT('s' VALUE s, 'i' VALUE i),
  JSON_OBJECT(KEY 'd' VALUE d, KEY 'b' VALUE b ABSENT ON NULL),
  JSON_OBJECT('nested' VALUE JSON_OBJECT('x' VALUE x), 'arr' VALUE JSON_ARRAY(1, 'two', b)),
  JSON_ARRAY(s, i, d NULL ON NULL), JSON_ARRAY(s, i ABSENT ON NULL), JSON_ARRAY(),
  JSON_OBJECT(), JSON_STRING(s), JSON_STRING(i), JSON_STRING(d)
FROM f;
