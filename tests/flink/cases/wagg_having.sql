-- Flink docs: docs/dev/table/sql/queries/window-agg.md, with HAVING and a filter before the window
CREATE TABLE Bid (
    bidtime TIMESTAMP(3),
    price DECIMAL(10, 2),
    item STRING,
    supplier_id STRING,
    WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/bid_topn.jsonl', 'format' = 'json');
SELECT window_start, window_end, supplier_id, SUM(price) AS total, COUNT(*) AS cnt
  FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
  WHERE item <> 'E'
  GROUP BY window_start, window_end, supplier_id
  HAVING COUNT(*) > 1;
