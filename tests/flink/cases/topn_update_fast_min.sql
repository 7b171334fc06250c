-- Top-2 over a GROUP BY's MIN ascending (update-fast: MIN only decreases)
CREATE TABLE clicks (
  k    STRING,
  item STRING,
  amt  INT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/clicks.jsonl', 'format' = 'json');
SELECT k, item, lo
FROM (
  SELECT k, item, lo,
    ROW_NUMBER() OVER (PARTITION BY k ORDER BY lo ASC) AS rn
  FROM (SELECT k, item, MIN(amt) AS lo FROM clicks GROUP BY k, item))
WHERE rn <= 2;
