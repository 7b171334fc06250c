-- Flink docs: docs/data/sql_functions.yml, STR_TO_MAP(text [, listDelimiter,
-- keyValueDelimiter]) with the default and regex delimiters.  Each map is compared as
-- CAST(.. AS STRING), which writes the entries in the order of the function's
-- java.util.HashMap (as TableResult.print() and MAP_KEYS see them); the collected row
-- (the oracle's) holds a new HashMap of default capacity, iterated in another order
CREATE TABLE f (
    id INT, s STRING, t STRING, i INT, j INT, d DECIMAL(10, 3), x DOUBLE, b BOOLEAN,
    ts TIMESTAMP(3), dt DATE, url STRING, js STRING
) WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id, CAST(STR_TO_MAP(s) AS STRING), CAST(STR_TO_MAP(s, ' ', 'l') AS STRING),
  CAST(STR_TO_MAP(url, '[?&]', '=') AS STRING), CAST(STR_TO_MAP('a=1,b=2,c=3') AS STRING),
  CAST(STR_TO_MAP('k1:v1;k2:v2', ';', ':') AS STRING),
  CAST(STR_TO_MAP('apple=1,banana=2,cherry=3,date=4,elderberry=5') AS STRING),
  CAST(STR_TO_MAP('a=,=b,a=3,,') AS STRING), CAST(STR_TO_MAP('x.y.z', '.', '=') AS STRING),
  CAST(STR_TO_MAP('x.y.z', '\.', '=') AS STRING), CAST(STR_TO_MAP('') AS STRING),
  CAST(STR_TO_MAP(t, ',', '=') AS STRING), MAP_KEYS(STR_TO_MAP(s, ' ', 'l')),
  CARDINALITY(STR_TO_MAP(url, '[?&]', '='))
FROM f;
