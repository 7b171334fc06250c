-- Flink docs: docs/dev/table/sql/queries/joins.md: LEFT JOIN UNNEST .. ON TRUE keeps rows with a
-- NULL or empty collection; a MAP expands to key and value, an ARRAY of ROW to the row's fields
CREATE TABLE u (id INT, tags ARRAY<STRING>, attrs MAP<STRING, STRING>, lines ARRAY<ROW<product STRING, qty INT>>, nums ARRAY<INT>) WITH ('connector' = 'filesystem', 'path' = '$DATA/unnest.jsonl', 'format' = 'json');
SELECT u.id, t.tag, m.k, m.v FROM u LEFT JOIN UNNEST(u.tags) AS t (tag) ON TRUE, UNNEST(u.attrs) AS m (k, v);
SELECT id, product, qty FROM u, UNNEST(lines) AS l (product, qty);
