-- Flink docs: docs/dev/table/functions/systemFunctions.md (docs/data/sql_functions.yml), string functions in docs/sql.md
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
SELECT id, UPPER(s), LOWER(s), CHAR_LENGTH(s), TRIM(t), TRIM(LEADING ' ' FROM t), TRIM(TRAILING ' ' FROM t),
  TRIM(BOTH 'x' FROM t), SUBSTRING(s, 2, 4), SUBSTRING(s FROM 3), REPLACE(s, 'l', 'L'), POSITION('o' IN s),
  s || '!' , CONCAT(s, t, 'z'), CONCAT_WS('~', s, t, CAST(NULL AS STRING), 'z'), LPAD(s, 4, '<'), RPAD(s, 13, '>'),
  REGEXP_REPLACE(s, '[aeiou]', '_'), REGEXP_EXTRACT(s, '([a-z]+) ([A-Z]+)', 2), REGEXP(s, 'o.*o'),
  SPLIT_INDEX(s, ' ', 1), MD5(s), s LIKE '%o%', s SIMILAR TO '[a-z]+ [A-Z]+'
FROM f;
