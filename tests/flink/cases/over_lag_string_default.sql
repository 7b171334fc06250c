-- LAG over a STRING column with a character literal as default (Flink casts it; sluice
-- refused it until make test-flink seed 13 #32 of gen.py's second generation)
CREATE TABLE t (id INT, k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '$DATA/lag_strings.jsonl', 'format' = 'json');
SELECT id, LAG(k, 1, 'none') OVER w AS l, LAG(k, 2, '') OVER w AS l2 FROM t WINDOW w AS (ORDER BY ts);
