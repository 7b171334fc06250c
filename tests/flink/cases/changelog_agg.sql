-- Flink docs: docs/connectors/table/formats/debezium.md and group-agg.md: aggregates over a
-- debezium-json changelog (updates and a delete retract from the aggregate)
CREATE TABLE currency_rates (
    currency STRING,
    conversion_rate DECIMAL(32, 3),
    update_time TIMESTAMP(3),
    WATERMARK FOR update_time AS update_time - INTERVAL '15' SECOND,
    PRIMARY KEY(currency) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = '$DATA/currency_rates.jsonl', 'format' = 'debezium-json');
SELECT COUNT(*) AS n, SUM(conversion_rate) AS total, MAX(conversion_rate) AS hi, MIN(currency) AS first_ccy
FROM currency_rates;
