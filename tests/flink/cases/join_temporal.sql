-- Flink docs: docs/dev/table/sql/queries/joins.md (Event Time Temporal Join): orders priced with
-- the currency rate valid at the order's time, from a debezium-json changelog of the rates
-- (EUR updated at 10:01:30 and 10:04, JPY deleted at 10:04's row, GBP and CHF created later).
CREATE TABLE orders (
    order_id    STRING,
    price       DECIMAL(32, 2),
    currency    STRING,
    order_time  TIMESTAMP(3),
    WATERMARK FOR order_time AS order_time - INTERVAL '15' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/orders_ccy.jsonl', 'format' = 'json');
CREATE TABLE currency_rates (
    currency STRING,
    conversion_rate DECIMAL(32, 3),
    update_time TIMESTAMP(3),
    WATERMARK FOR update_time AS update_time - INTERVAL '15' SECOND,
    PRIMARY KEY(currency) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = '$DATA/currency_rates.jsonl', 'format' = 'debezium-json');
SELECT
     orders.order_id,
     orders.price,
     orders.currency,
     currency_rates.conversion_rate,
     orders.order_time
FROM orders
LEFT JOIN currency_rates FOR SYSTEM_TIME AS OF orders.order_time
ON orders.currency = currency_rates.currency;
