-- Top-1 over a GROUP BY with HAVING: the retract strategy in both engines (sluice
-- drops the strategy metadata at any filter)
CREATE TABLE clicks (
  k    STRING,
  item STRING,
  amt  INT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/clicks.jsonl', 'format' = 'json');
SELECT k, item, cnt
FROM (
  SELECT k, item, cnt,
    ROW_NUMBER() OVER (PARTITION BY k ORDER BY cnt DESC) AS rn
  FROM (SELECT k, item, COUNT(*) AS cnt FROM clicks GROUP BY k, item HAVING COUNT(*) > 1))
WHERE rn = 1;
