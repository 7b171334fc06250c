-- Flink docs: docs/dev/table/sql/queries/match_recognize.md ("Output Mode"), without AFTER MATCH:
-- Flink 1.20.3 skips to the next row (its planner's default), so the matches from 12 and 13
-- follow the page's one row (10, 13, 11); sluice does the same (docs/match_recognize.md).
CREATE TABLE Ticker (symbol STRING, tax BIGINT, price BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '$DATA/mr_output_mode.jsonl', 'format' = 'json');
SELECT *
FROM Ticker
    MATCH_RECOGNIZE(
        PARTITION BY symbol
        ORDER BY rowtime
        MEASURES
            FIRST(A.price) AS startPrice,
            LAST(A.price) AS topPrice,
            B.price AS lastPrice
        ONE ROW PER MATCH
        PATTERN (A+ B)
        DEFINE
            A AS LAST(A.price, 1) IS NULL OR A.price > LAST(A.price, 1),
            B AS B.price < LAST(A.price)
    );
