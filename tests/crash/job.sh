# job.sh - sourced by crash.sh and faults.sh: the job both run, after their
# own SET lines.  job_tables INPUT_DIR OUTPUT_DIR prints its tables and
# INSERTs: 1-minute tumbling windows into a json file sink and a
# non-windowed aggregate into a debezium-json file sink.
job_tables() {
	cat <<SQL
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '$1', 'format' = 'json');
CREATE TABLE win_out (user_id STRING, ws TIMESTAMP(3), total DECIMAL(38, 2), n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$2/out_win', 'format' = 'json');
CREATE TABLE agg_out (user_id STRING, total DECIMAL(38, 2), n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$2/out_agg', 'format' = 'debezium-json');
INSERT INTO win_out SELECT user_id, window_start, SUM(amount), COUNT(*)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
  GROUP BY user_id, window_start, window_end;
INSERT INTO agg_out SELECT user_id, SUM(amount), COUNT(*) FROM orders GROUP BY user_id;
SQL
}
