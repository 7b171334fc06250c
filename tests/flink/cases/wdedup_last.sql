-- Flink docs: docs/dev/table/sql/queries/window-deduplication.md (the last row of each window)
CREATE TABLE Bid (
    bidtime TIMESTAMP(3),
    price DECIMAL(10, 2),
    item STRING,
    supplier_id STRING,
    WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/bid_topn.jsonl', 'format' = 'json');
SELECT *
  FROM (
    SELECT bidtime, price, item, supplier_id, window_start, window_end,
      ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY bidtime DESC) AS rownum
    FROM TABLE(
               TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  ) WHERE rownum <= 1;
