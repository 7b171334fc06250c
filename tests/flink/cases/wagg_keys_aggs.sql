-- Flink docs: docs/dev/table/sql/queries/window-agg.md (Window TVF Aggregation), with keys and the documented aggregates
CREATE TABLE Bid (
    bidtime TIMESTAMP(3),
    price DECIMAL(10, 2),
    item STRING,
    supplier_id STRING,
    WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/bid.jsonl', 'format' = 'json');
SELECT window_start, window_end, window_time, supplier_id, COUNT(*) AS cnt, SUM(price) AS total,
       MIN(price) AS lo, MAX(item) AS hi, AVG(price) AS avg_price, COUNT(DISTINCT item) AS items
  FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '4' MINUTES))
  GROUP BY window_start, window_end, window_time, supplier_id;
