-- The seed pipeline (the Flink streaming-ETL example sluice started from,
-- not part of this repository): hourly revenue per user, in Flink SQL as
-- written there, with file connectors in place of Kafka and Iceberg.
-- Run from the repository root:  ./build/sluice run examples/hourly_revenue/job.sql
CREATE TABLE orders (
    id STRING,
    user_id STRING,
    amount DECIMAL(10, 2),
    event_time TIMESTAMP(3),
    WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
) WITH (
    'connector' = 'filesystem',
    'path' = 'examples/data/orders.jsonl',
    'format' = 'json'
);

CREATE TABLE hourly_revenue (
    user_id STRING,
    window_start TIMESTAMP(3),
    revenue DECIMAL(20, 2),
    PRIMARY KEY (user_id, window_start) NOT ENFORCED
) WITH (
    'connector' = 'filesystem',
    'path' = 'out/hourly_revenue',
    'format' = 'json'
);

INSERT INTO hourly_revenue
SELECT user_id, TUMBLE_START(event_time, INTERVAL '1' HOUR) AS window_start, SUM(amount)
FROM orders
GROUP BY user_id, TUMBLE(event_time, INTERVAL '1' HOUR);
