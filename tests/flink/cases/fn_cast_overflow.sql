-- Flink docs: docs/dev/table/types.md (casting): CAST of an integer to a narrower integer type.
-- Flink wraps the value around (Java's narrowing: -2147483647 AS TINYINT is 1); sluice stops
-- with an error naming the value rather than give a silently wrong number.
-- deliberate: an integer CAST that overflows is an error in sluice; Flink wraps it around
CREATE TABLE f (id INT, i INT) WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id, CAST(i AS TINYINT), CAST(i AS SMALLINT) FROM f WHERE id = 3;
