-- Top-1 over a GROUP BY's SUM (not monotonic for Flink: the retract strategy,
-- RetractableTopNFunction)
CREATE TABLE clicks (
  k    STRING,
  item STRING,
  amt  INT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/clicks.jsonl', 'format' = 'json');
SELECT k, item, total
FROM (
  SELECT k, item, total,
    ROW_NUMBER() OVER (PARTITION BY k ORDER BY total DESC) AS rn
  FROM (SELECT k, item, SUM(amt) AS total FROM clicks GROUP BY k, item))
WHERE rn = 1;
