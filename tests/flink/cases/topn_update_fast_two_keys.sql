-- Top-2 ordered by two columns of a GROUP BY, MAX DESC then the group key item
-- (constant) ASC: update-fast
CREATE TABLE clicks (
  k    STRING,
  item STRING,
  amt  INT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/clicks.jsonl', 'format' = 'json');
SELECT k, item, hi
FROM (
  SELECT k, item, hi,
    ROW_NUMBER() OVER (PARTITION BY k ORDER BY hi DESC, item ASC) AS rn
  FROM (SELECT k, item, MAX(amt) AS hi FROM clicks GROUP BY k, item))
WHERE rn <= 2;
