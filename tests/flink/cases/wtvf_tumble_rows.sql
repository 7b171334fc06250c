-- Flink docs: docs/dev/table/sql/queries/window-tvf.md (TUMBLE: the TVF read as a table)
CREATE TABLE Bid (
    bidtime TIMESTAMP(3),
    price DECIMAL(10, 2),
    item STRING,
    supplier_id STRING,
    WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/bid.jsonl', 'format' = 'json');
SELECT * FROM TABLE(
   TUMBLE(
     DATA => TABLE Bid,
     TIMECOL => DESCRIPTOR(bidtime),
     SIZE => INTERVAL '10' MINUTES));
