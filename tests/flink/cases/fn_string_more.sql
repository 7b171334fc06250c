-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), string functions not in docs/sql.md yet
CREATE TABLE f (
    id INT,
    s STRING,
    t STRING,
    i INT,
    j INT,
    d DECIMAL(10, 3),
    x DOUBLE,
    b BOOLEAN,
    ts TIMESTAMP(3),
    dt DATE,
    url STRING,
    js STRING
) WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id, INITCAP(s), REVERSE(s), LEFT(s, 3), RIGHT(s, 3), LOCATE('o', s), ASCII(s), CHR(i),
  REPEAT(s, 2), OVERLAY(s PLACING 'XY' FROM 2 FOR 3), LTRIM(t), RTRIM(t), INSTR(s, 'l')
FROM f;
