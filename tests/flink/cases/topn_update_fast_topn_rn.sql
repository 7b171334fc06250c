-- Top-3 over a GROUP BY's COUNT with the row number (update-fast,
-- UpdatableTopNFunction: -U/+U for every rank between the old and the new place)
CREATE TABLE clicks (
  k    STRING,
  item STRING,
  amt  INT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/clicks.jsonl', 'format' = 'json');
SELECT k, item, cnt, rn
FROM (
  SELECT k, item, cnt,
    ROW_NUMBER() OVER (PARTITION BY k ORDER BY cnt DESC) AS rn
  FROM (SELECT k, item, COUNT(*) AS cnt FROM clicks GROUP BY k, item))
WHERE rn <= 3;
