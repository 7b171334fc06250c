-- Ranks 2 .. 3 over a GROUP BY's COUNT without the row number (update-fast with
-- an offset: UpdatableTopNFunction's with-row-number algorithm, -U/+U per rank)
CREATE TABLE clicks (
  k    STRING,
  item STRING,
  amt  INT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/clicks.jsonl', 'format' = 'json');
SELECT k, item, cnt
FROM (
  SELECT k, item, cnt,
    ROW_NUMBER() OVER (PARTITION BY k ORDER BY cnt DESC) AS rn
  FROM (SELECT k, item, COUNT(*) AS cnt FROM clicks GROUP BY k, item))
WHERE rn BETWEEN 2 AND 3;
