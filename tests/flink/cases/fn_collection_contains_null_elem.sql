-- deliberate: Flink 1.20.3 fails the job with a NullPointerException ("Cannot invoke
-- java.lang.Integer.intValue()") on ARRAY_CONTAINS over an ARRAY<INT> holding a NULL element; sluice
-- answers as its docs say (FALSE for [NULL, 5] and 1; NULL elements are skipped)
CREATE TABLE u (id INT, tags ARRAY<STRING>, attrs MAP<STRING, STRING>, lines ARRAY<ROW<product STRING, qty INT>>, nums ARRAY<INT>) WITH ('connector' = 'filesystem', 'path' = '$DATA/unnest.jsonl', 'format' = 'json');
SELECT id, ARRAY_CONTAINS(nums, 1), ARRAY_CONTAINS(nums, 5) FROM u;
