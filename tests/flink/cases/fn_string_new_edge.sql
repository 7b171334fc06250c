-- Flink docs: docs/dev/table/functions/systemFunctions.md (string functions), edge values of
-- INITCAP, REVERSE, LEFT, RIGHT, LOCATE, ASCII, CHR, REPEAT, OVERLAY, LTRIM, RTRIM, INSTR,
-- SUBSTR: non-ASCII text, empty strings, negative and zero lengths
CREATE TABLE f (id INT, s STRING, t STRING, i INT, j INT)
WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id, INITCAP(s), INITCAP(t), REVERSE(s), LEFT(s, 0), LEFT(s, -1), LEFT(s, 100), RIGHT(s, 2), RIGHT(s, -3),
  LOCATE('o', s), LOCATE('o', s, 6), LOCATE('', s), ASCII(s), ASCII(''), CHR(j), CHR(233), REPEAT(s, 0), REPEAT('ab', j),
  OVERLAY(s PLACING 'XY' FROM 2), OVERLAY(s PLACING '' FROM 1 FOR 2), LTRIM(t), RTRIM(t), INSTR(s, 'l'),
  SUBSTR(s, 2), SUBSTR(s, 2, 3), SUBSTR(s, -2)
FROM f;
