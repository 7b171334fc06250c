-- xfail: open bug: Flink moves the projection that drops item above its Rank, so the
-- Rank still sees the upsert key (k, item) and takes the update-fast strategy; sluice
-- ranks the projected rows, which have no upsert key, with the retract strategy
-- Top-2 over a GROUP BY's COUNT whose projection drops a GROUP BY column (no
-- upsert key left): the retract strategy (RetractableTopNFunction)
CREATE TABLE clicks (
  k    STRING,
  item STRING,
  amt  INT
) WITH ('connector' = 'filesystem', 'path' = '$DATA/clicks.jsonl', 'format' = 'json');
SELECT k, cnt
FROM (
  SELECT k, cnt,
    ROW_NUMBER() OVER (PARTITION BY k ORDER BY cnt DESC) AS rn
  FROM (SELECT k, COUNT(*) AS cnt FROM clicks GROUP BY k, item))
WHERE rn <= 2;
