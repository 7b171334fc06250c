-- Flink docs: docs/data/sql_functions.yml, ENCODE(string, charset) and
-- DECODE(binary, charset) with the six documented charsets, non-ASCII text and NULLs
CREATE TABLE f (
    id INT, s STRING, t STRING, i INT, j INT, d DECIMAL(10, 3), x DOUBLE, b BOOLEAN,
    ts TIMESTAMP(3), dt DATE, url STRING, js STRING
) WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id, TO_BASE64(ENCODE(s, 'UTF-8')), TO_BASE64(ENCODE(s, 'US-ASCII')),
  TO_BASE64(ENCODE(s, 'ISO-8859-1')), TO_BASE64(ENCODE(s, 'UTF-16BE')),
  TO_BASE64(ENCODE(s, 'UTF-16LE')), TO_BASE64(ENCODE(s, 'UTF-16')),
  DECODE(ENCODE(s, 'UTF-16'), 'UTF-16'), DECODE(ENCODE(s, 'UTF-8'), 'ISO-8859-1'),
  DECODE(ENCODE(s, 'ISO-8859-1'), 'UTF-8'), DECODE(x'E282AC41FF', 'UTF-8'),
  DECODE(x'D83DDE00', 'UTF-16BE'), DECODE(x'FFFE4100', 'UTF-16')
FROM f;
