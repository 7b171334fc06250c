-- STDDEV/VAR over FLOAT, BIGINT, SMALLINT and DISTINCT; LISTAGG default separator and FILTER (sluice: tests/slt/aggregates_stat.slt)
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
SELECT VAR_POP(CAST(x AS FLOAT)), STDDEV_SAMP(CAST(x AS FLOAT)), VAR_SAMP(DISTINCT j), STDDEV_POP(CAST(i AS BIGINT)), VARIANCE(CAST(j AS SMALLINT)), LISTAGG(s) FILTER (WHERE id > 1), LISTAGG(DISTINCT t) FROM f;
