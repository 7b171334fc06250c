-- Flink docs: docs/data/sql_functions.yml, value construction: ROW(value1, ...) and
-- (value1, value2, ...); a nested row, a row in an ARRAY, a field read through a CAST
-- naming the fields (a row inside an ARRAY without NULL fields: the oracle writes
-- those as null, Flink's TableResult.print() and sluice as NULL)
CREATE TABLE f (
    id INT, s STRING, t STRING, i INT, j INT, d DECIMAL(10, 3), x DOUBLE, b BOOLEAN,
    ts TIMESTAMP(3), dt DATE, url STRING, js STRING
) WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id, ROW(id, s), (i, j, b), ROW(id, ROW(s, d)), ARRAY[ROW(id, 'k')],
  CAST(ROW(i, s) AS ROW<x INT, y STRING>).y, ROW(1, 'a')
FROM f;
