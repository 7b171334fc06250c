-- The seed's FraudDetector (in the Flink example sluice started from, not
-- part of this repository: a KeyedProcessFunction that counts a user's
-- orders and alerts when a user who already has more than 10 orders places
-- one over 1000) as Flink SQL with an OVER aggregate: the
-- running count of the user's orders in event-time order, minus the
-- current one.  Rows come out once the watermark (5 s behind) passes them,
-- in event-time order, so the count is that of the orders before it in
-- event time: o14 (09:00:12.5) arrives after o13 (09:00:13) but is counted
-- before it.  o11 is the 11th order: 10 before it, no alert.  o15 arrives
-- 11 s behind the newest order, past the watermark: late, dropped and
-- counted ("1 late rows dropped" in the job summary).
CREATE TABLE orders (
    id STRING,
    user_id STRING,
    amount DECIMAL(10, 2),
    event_time TIMESTAMP(3),
    WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'examples/fraud/orders.jsonl', 'format' = 'json');

SELECT user_id, id, amount, event_time, prior_orders
FROM (
    SELECT id, user_id, amount, event_time,
           COUNT(*) OVER (PARTITION BY user_id ORDER BY event_time
                          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - 1 AS prior_orders
    FROM orders
)
WHERE prior_orders > 10 AND amount > 1000;
