-- Flink: an uncorrelated scalar subquery in the SELECT list
-- changelog: none
CREATE TABLE Bid (
    bidtime TIMESTAMP(3),
    price DECIMAL(10, 2),
    item STRING,
    supplier_id STRING,
    WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/bid.jsonl', 'format' = 'json');
SELECT item, price, (SELECT MAX(price) FROM Bid) AS top FROM Bid;
