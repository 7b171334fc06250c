# job.sh - sourced by crash.sh and faults.sh: the job both run, after their
# own SET lines.  job_tables INPUT_DIR OUTPUT_DIR prints its tables and
# INSERTs, one per sink directory of $SINKS:
#   out_win   1-minute tumbling windows (json)
#   out_agg   a non-windowed aggregate (debezium-json: updating)
#   out_join  a regular inner join of orders with a generated users table
#   out_ij    an interval self-join of the large orders (rows late in their
#             own stream are left out first, so the pairs do not depend on
#             how the two join inputs interleave)
#   out_top   the top 3 orders by amount per user (debezium-json: updating)
SINKS="out_win out_agg out_join out_ij out_top"
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
CREATE TABLE gen_users (n INT) WITH ('connector' = 'datagen', 'rows-per-second' = '0',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '0', 'fields.n.end' = '999');
CREATE VIEW users AS SELECT CONCAT('u', CAST(n AS STRING)) AS user_id, MOD(n, 5) AS tier
  FROM gen_users;
CREATE TABLE join_out (id STRING, user_id STRING, tier INT, amount DECIMAL(10, 2))
  WITH ('connector' = 'filesystem', 'path' = '$2/out_join', 'format' = 'json');
INSERT INTO join_out SELECT o.id, o.user_id, u.tier, o.amount
  FROM (SELECT * FROM orders WHERE amount >= 950) o JOIN users u ON o.user_id = u.user_id;
CREATE VIEW big AS SELECT * FROM orders WHERE amount >= 900
  AND (CURRENT_WATERMARK(event_time) IS NULL OR event_time >= CURRENT_WATERMARK(event_time));
CREATE TABLE ij_out (a STRING, b STRING, user_id STRING, ta TIMESTAMP(3), tb TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '$2/out_ij', 'format' = 'json');
INSERT INTO ij_out SELECT a.id, b.id, a.user_id, a.event_time, b.event_time
  FROM big a JOIN big b ON a.user_id = b.user_id
  AND a.event_time BETWEEN b.event_time - INTERVAL '20' SECOND AND b.event_time
  AND a.id <> b.id;
CREATE TABLE top_out (user_id STRING, id STRING, amount DECIMAL(10, 2), rn BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$2/out_top', 'format' = 'debezium-json');
INSERT INTO top_out SELECT user_id, id, amount, rn FROM (
  SELECT user_id, id, amount,
    ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY amount DESC) AS rn FROM orders)
  WHERE rn <= 3;
SQL
}
