-- Flink docs: docs/dev/table/sql/queries/window-tvf.md (Window Offset): TUMBLE of 4 minutes with a
-- 1 minute offset. Flink 1.20.3 loses the first window [08:05, 08:09) (supplier1: C, A),
-- apparently FLINK-36664 ("Window with offset need deal offset when cal nextTriggerWatermark",
-- data loss; pull request apache/flink#25629); sluice emits it.
-- deliberate: Flink 1.20 bug (FLINK-36664): a window TVF with an offset loses its first window
CREATE TABLE Bid (
    bidtime TIMESTAMP(3),
    price DECIMAL(10, 2),
    item STRING,
    supplier_id STRING,
    WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/bid.jsonl', 'format' = 'json');
SELECT window_start, window_end, supplier_id, COUNT(*) AS cnt, SUM(price) AS total
  FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '4' MINUTES, INTERVAL '1' MINUTES))
  GROUP BY window_start, window_end, supplier_id;
