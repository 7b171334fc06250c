-- Top-1 partitioned by a part of the GROUP BY key (PARTITION BY item, grouped
-- by k, item): the upsert key holds the partition key, update-fast
CREATE TABLE clicks (
  k    STRING,
  item STRING,
  amt  INT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/clicks.jsonl', 'format' = 'json');
SELECT k, item, cnt
FROM (
  SELECT k, item, cnt,
    ROW_NUMBER() OVER (PARTITION BY item ORDER BY cnt DESC) AS rn
  FROM (SELECT k, item, COUNT(*) AS cnt FROM clicks GROUP BY k, item))
WHERE rn = 1;
