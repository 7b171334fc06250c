-- Flink docs: docs/dev/table/sql/queries/window-topn.md, over CUMULATE windows with a window aggregate
CREATE TABLE Bid (
    bidtime TIMESTAMP(3),
    price DECIMAL(10, 2),
    item STRING,
    supplier_id STRING,
    WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/bid_topn.jsonl', 'format' = 'json');
SELECT *
  FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) as rownum
    FROM (
      SELECT window_start, window_end, window_time, supplier_id, SUM(price) as price, COUNT(*) as cnt
      FROM TABLE(
        CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
      GROUP BY window_start, window_end, window_time, supplier_id
    )
  ) WHERE rownum <= 2;
