-- deliberate: Flink 1.20.3 fails the job with a ClassCastException (MapUnionFunction's
-- MapDataForMapUnion is not a GenericMapData) on an item of MAP_UNION's result; sluice answers
-- (a later map's value wins: 'app' for every row but id 3, whose NULL map gives NULL)
CREATE TABLE u (id INT, tags ARRAY<STRING>, attrs MAP<STRING, STRING>, lines ARRAY<ROW<product STRING, qty INT>>, nums ARRAY<INT>) WITH ('connector' = 'filesystem', 'path' = '$DATA/unnest.jsonl', 'format' = 'json');
SELECT id, MAP_UNION(attrs, MAP['src', 'app'])['src'] FROM u;
