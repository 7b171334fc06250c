-- Query q4 of Flink's Nexmark suite: nexmark/nexmark (https://github.com/nexmark/nexmark, commit 6b3646c,
-- nexmark-flink/src/main/resources/queries/q4.sql), Apache License 2.0; the text as published there.
-- Unchanged; bench/nexmark/run_query.sh runs it after ddl_gen.sql and ddl_views.sql.
-- -------------------------------------------------------------------------------------------------
-- Query 4: Average Price for a Category
-- -------------------------------------------------------------------------------------------------
-- Select the average of the wining bid prices for all auctions in each category.
-- Illustrates complex join and aggregation.
-- -------------------------------------------------------------------------------------------------

CREATE TABLE nexmark_q4 (
  id BIGINT,
  final BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q4
SELECT
    Q.category,
    AVG(Q.final)
FROM (
    SELECT MAX(B.price) AS final, A.category
    FROM auction A, bid B
    WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
    GROUP BY A.id, A.category
) Q
GROUP BY Q.category;
