-- Flink docs: docs/data/sql_functions.yml (collection functions) over ARRAY and MAP columns with
-- NULL and empty collections and NULL elements (map keys sorted: a JSON object's order in
-- Flink's MAP is its HashMap's)
CREATE TABLE u (id INT, tags ARRAY<STRING>, attrs MAP<STRING, STRING>, lines ARRAY<ROW<product STRING, qty INT>>, nums ARRAY<INT>) WITH ('connector' = 'filesystem', 'path' = '$DATA/unnest.jsonl', 'format' = 'json');
SELECT id, ARRAY_CONTAINS(tags, 'red'), ARRAY_CONTAINS(nums, CAST(NULL AS INT)), ARRAY_POSITION(nums, 1),
  ARRAY_REMOVE(nums, 1), ARRAY_DISTINCT(nums), ARRAY_REVERSE(nums), ARRAY_SLICE(nums, 2), ARRAY_SLICE(nums, -2, -1),
  ARRAY_UNION(nums, ARRAY[9, 1]), ARRAY_EXCEPT(nums, ARRAY[1]), ARRAY_INTERSECT(nums, ARRAY[1, 5]),
  ARRAY_CONCAT(nums, ARRAY[7]), ARRAY_APPEND(nums, 8), ARRAY_PREPEND(nums, 0), ARRAY_MAX(nums), ARRAY_MIN(nums),
  ARRAY_SORT(nums), ARRAY_SORT(nums, FALSE), ARRAY_JOIN(tags, '|'), ARRAY_JOIN(tags, '|', '?'),
  ARRAY_SORT(MAP_KEYS(attrs)), ARRAY_SORT(MAP_VALUES(attrs)), CARDINALITY(MAP_UNION(attrs, MAP['src', 'app'])),
  MAP_UNION(MAP['k', CAST(id AS STRING)], MAP['k', 'z'])
FROM u;
