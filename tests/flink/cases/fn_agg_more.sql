-- Flink docs: docs/dev/table/functions/systemFunctions.md (aggregate functions)
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
SELECT COUNT(*), STDDEV_POP(x), STDDEV_SAMP(x), VAR_POP(j), VAR_SAMP(j), LISTAGG(s, ';') FROM f;
