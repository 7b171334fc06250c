-- Flink docs: docs/dev/table/sql/queries/window-topn.md, with RANK (ties: 08:05 A and 08:06 C both 4.00)
-- Flink 1.20 runs only ROW_NUMBER window Top-N; sluice runs it (docs/sql.md)
-- deliberate: sluice extension: RANK window Top-N, which Flink 1.20 refuses
-- both-refuse: RANK() function is not supported on Window TopN currently
CREATE TABLE Bid (
    bidtime TIMESTAMP(3),
    price DECIMAL(10, 2),
    item STRING,
    supplier_id STRING,
    WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/bid_topn.jsonl', 'format' = 'json');
SELECT *
  FROM (
    SELECT bidtime, price, item, window_start, window_end,
      RANK() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) as rk
    FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  ) WHERE rk <= 2;
