-- Flink docs: docs/dev/table/sql/queries/joins.md ("Array Expansion"): CROSS JOIN UNNEST and
-- the comma form over an ARRAY column; NULL and empty arrays give no row, NULL elements a row
CREATE TABLE u (id INT, tags ARRAY<STRING>, attrs MAP<STRING, STRING>, lines ARRAY<ROW<product STRING, qty INT>>, nums ARRAY<INT>) WITH ('connector' = 'filesystem', 'path' = '$DATA/unnest.jsonl', 'format' = 'json');
SELECT id, tag FROM u CROSS JOIN UNNEST(tags) AS t (tag);
