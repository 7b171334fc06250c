-- Top-1 over a GROUP BY whose COUNT only grows (Flink's update-fast strategy,
-- FastTop1Function: -U old / +U new; RankProcessStrategy.analyzeRankProcessStrategies)
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
WHERE rn = 1;
