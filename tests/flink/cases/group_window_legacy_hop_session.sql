-- Flink docs: docs/dev/table/sql/queries/window-agg.md (Group Window Aggregation: HOP, SESSION)
CREATE TABLE Bid (
    bidtime TIMESTAMP(3),
    price DECIMAL(10, 2),
    item STRING,
    supplier_id STRING,
    WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/bid.jsonl', 'format' = 'json');
SELECT 'hop' AS w, HOP_START(bidtime, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE) AS wstart,
  HOP_END(bidtime, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE) AS wend, COUNT(*) AS cnt
FROM Bid GROUP BY HOP(bidtime, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE)
UNION ALL
SELECT 'session', SESSION_START(bidtime, INTERVAL '3' MINUTE), SESSION_END(bidtime, INTERVAL '3' MINUTE), COUNT(*)
FROM Bid GROUP BY SESSION(bidtime, INTERVAL '3' MINUTE);
