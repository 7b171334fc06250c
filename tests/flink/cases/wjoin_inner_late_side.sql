-- Flink docs: docs/dev/table/sql/queries/window-join.md
-- With the docs' 1 s delay and a watermark per row ('on-event'), L3 (12:03, after L2 at
-- 12:06) arrives with LeftTable's watermark at 12:05:59. sluice drops it as late in the
-- window TVF of the left side, before the join; Flink judges lateness in the window join by
-- the join's watermark, the minimum of both sides (RightTable's never passes 12:03:59), and
-- joins it with R3 as the docs print. (INNER)
-- deliberate: Flink's answer depends on how its two sources interleave (runs here gave L3 joined and L3 dropped); sluice judges the row by its own side's watermark, deterministically
CREATE TABLE LeftTable (
    row_time TIMESTAMP(3),
    num INT,
    id STRING,
    WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/left_table.jsonl', 'format' = 'json',
        'scan.watermark.emit.strategy' = 'on-event');
CREATE TABLE RightTable (
    row_time TIMESTAMP(3),
    num INT,
    id STRING,
    WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/right_table.jsonl', 'format' = 'json',
        'scan.watermark.emit.strategy' = 'on-event');
SELECT L.num, L.id, R.id, L.window_start, L.window_end
  FROM (SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
  JOIN (SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
  ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
