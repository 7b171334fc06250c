-- topn_retract_top1 with the row number in the output: Flink drops a Top-1's row number
-- (the constant 1) and emits -D old / +I new as without it (random case seed 13 #66
-- of gen.py's second generation found sluice emitting -U / +U)
CREATE TABLE clicks (
  k    STRING,
  item STRING,
  amt  INT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/clicks.jsonl', 'format' = 'json');
SELECT k, item, total, rn
FROM (
  SELECT k, item, total,
    ROW_NUMBER() OVER (PARTITION BY k ORDER BY total DESC) AS rn
  FROM (SELECT k, item, SUM(amt) AS total FROM clicks GROUP BY k, item))
WHERE rn = 1;
