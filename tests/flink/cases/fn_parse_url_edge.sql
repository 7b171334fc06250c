-- Flink docs: docs/dev/table/functions/systemFunctions.md (PARSE_URL): every part, a query key
-- that is missing, user info and port, text that is not a URL, NULL
CREATE TABLE f (id INT, url STRING) WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id, PARSE_URL(url, 'HOST'), PARSE_URL(url, 'PATH'), PARSE_URL(url, 'QUERY'), PARSE_URL(url, 'QUERY', 'k1'),
  PARSE_URL(url, 'QUERY', 'nope'), PARSE_URL(url, 'REF'), PARSE_URL(url, 'PROTOCOL'), PARSE_URL(url, 'FILE'),
  PARSE_URL(url, 'AUTHORITY'), PARSE_URL(url, 'USERINFO')
FROM f;
