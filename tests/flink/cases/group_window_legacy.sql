-- Flink docs: docs/dev/table/sql/queries/window-agg.md (Group Window Aggregation)
CREATE TABLE Bid (
    bidtime TIMESTAMP(3),
    price DECIMAL(10, 2),
    item STRING,
    supplier_id STRING,
    WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/bid.jsonl', 'format' = 'json');
SELECT supplier_id,
  TUMBLE_START(bidtime, INTERVAL '10' MINUTE) AS wstart,
  TUMBLE_END(bidtime, INTERVAL '10' MINUTE) AS wend,
  TUMBLE_ROWTIME(bidtime, INTERVAL '10' MINUTE) AS wrowtime,
  SUM(price) AS total
FROM Bid
GROUP BY TUMBLE(bidtime, INTERVAL '10' MINUTE), supplier_id;
