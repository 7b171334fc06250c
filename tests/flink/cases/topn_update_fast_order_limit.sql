-- ORDER BY .. LIMIT over a GROUP BY's COUNT (a SortLimit: update-fast)
CREATE TABLE clicks (
  k    STRING,
  item STRING,
  amt  INT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/clicks.jsonl', 'format' = 'json');
SELECT k, item, COUNT(*) AS cnt FROM clicks GROUP BY k, item ORDER BY cnt DESC LIMIT 2;
