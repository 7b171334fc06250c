-- Flink docs: docs/data/sql_functions.yml, TYPEOF(input [, force_serializable]) over
-- columns of several types, expressions and literals
CREATE TABLE f (
    id INT, s STRING, t STRING, i INT, j INT, d DECIMAL(10, 3), x DOUBLE, b BOOLEAN,
    ts TIMESTAMP(3), dt DATE, url STRING, js STRING
) WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id, TYPEOF(s), TYPEOF(i), TYPEOF(d), TYPEOF(x), TYPEOF(b), TYPEOF(ts), TYPEOF(dt),
  TYPEOF(i + j), TYPEOF(1), TYPEOF('abc'), TYPEOF(NULL), TYPEOF(CAST(NULL AS DOUBLE)),
  TYPEOF(s, TRUE), TYPEOF(ts, TRUE), TYPEOF(CAST(ts AS TIMESTAMP_LTZ(3))),
  TYPEOF(CAST(ts AS TIMESTAMP_LTZ(3)), TRUE), TYPEOF(ROW(i, s))
FROM f;
