-- Query q6 of Flink's Nexmark suite (queries/q6.sql, nexmark/nexmark commit 6b3646c, Apache
-- License 2.0) with two changes, so that it is valid SQL: the published text filters `rownum <= 1`
-- in the WHERE of the SELECT that defines `rownum` (standard SQL, Calcite and sluice do not let a
-- WHERE see its own SELECT's aliases), so here the filter is in an enclosing SELECT, as in q9; and
-- its ROW_NUMBER names `A.id, A.seller` and `B.price` outside the derived table that defines A and
-- B, so here they are the derived table's columns `id, seller` and `price`.
-- Flink does not run q6 either way (FLINK-19059: OVER over the Top-1's updating output); sluice
-- runs it with its OVER aggregate over an updating input (docs/nexmark.md, "q6").
-- bench/nexmark/run_query.sh runs it after ddl_gen.sql and ddl_views.sql.
-- -------------------------------------------------------------------------------------------------
-- Query 6: Average Selling Price by Seller
-- -------------------------------------------------------------------------------------------------
-- What is the average selling price per seller for their last 10 closed auctions.
-- Shares the same 'winning bids' core as for Query4, and illustrates a specialized combiner.
-- -------------------------------------------------------------------------------------------------

CREATE TABLE nexmark_q6 (
  seller VARCHAR,
  avg_price  BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q6
SELECT
    Q.seller,
    AVG(Q.price) OVER
        (PARTITION BY Q.seller ORDER BY Q.`dateTime` ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)
FROM (SELECT * FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY id, seller ORDER BY price DESC) AS rownum
    FROM (SELECT A.id, A.seller, B.price, B.`dateTime`
        FROM auction AS A,
            bid AS B
        WHERE A.id = B.auction
            and B.`dateTime` between A.`dateTime` and A.expires))
    WHERE rownum <= 1
) AS Q;
