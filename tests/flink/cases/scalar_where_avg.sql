-- Flink: an uncorrelated scalar subquery in WHERE (a LEFT JOIN ON TRUE against the
-- single-row aggregate)
-- changelog: none
CREATE TABLE Bid (
    bidtime TIMESTAMP(3),
    price DECIMAL(10, 2),
    item STRING,
    supplier_id STRING,
    WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/bid.jsonl', 'format' = 'json');
SELECT item, price FROM Bid WHERE price > (SELECT AVG(price) FROM Bid);
