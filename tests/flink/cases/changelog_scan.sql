-- Flink docs: docs/connectors/table/formats/debezium.md: a debezium-json changelog read from files,
-- printed as the changes (create, update as -U/+U, delete as -D)
CREATE TABLE currency_rates (
    currency STRING,
    conversion_rate DECIMAL(32, 3),
    update_time TIMESTAMP(3),
    WATERMARK FOR update_time AS update_time - INTERVAL '15' SECOND,
    PRIMARY KEY(currency) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = '$DATA/currency_rates.jsonl', 'format' = 'debezium-json');
SELECT currency, conversion_rate, update_time FROM currency_rates;
