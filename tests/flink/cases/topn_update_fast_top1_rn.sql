-- Top-1 with the row number over a GROUP BY's MAX (update-fast, FastTop1Function)
CREATE TABLE clicks (
  k    STRING,
  item STRING,
  amt  INT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/clicks.jsonl', 'format' = 'json');
SELECT k, item, hi, rn
FROM (
  SELECT k, item, hi,
    ROW_NUMBER() OVER (PARTITION BY k ORDER BY hi DESC) AS rn
  FROM (SELECT k, item, MAX(amt) AS hi FROM clicks GROUP BY k, item))
WHERE rn <= 1;
