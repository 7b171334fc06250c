-- Flink docs: docs/dev/table/sql/queries/orderby.md (streaming: sorted on a time attribute,
-- ascending, first; further keys order the rows of one rowtime): ties of the rowtime with
-- a string key descending (NULL, non-ASCII), a DECIMAL key with a NULL, then the id.
-- changelog: ordered
CREATE TABLE t (
    id INT, k STRING, d DECIMAL(10, 2), ts TIMESTAMP(3),
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/order_ties.jsonl', 'format' = 'json');
SELECT id, k, d, ts FROM t ORDER BY ts, k DESC, d, id;
