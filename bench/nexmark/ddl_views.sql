-- Flink's Nexmark views: nexmark/nexmark (https://github.com/nexmark/nexmark, commit 6b3646c,
-- nexmark-flink/src/main/resources/queries/ddl_views.sql), Apache License 2.0; the text as published there.
-- ${NEXMARK_TABLE} is 'datagen' (bench/nexmark/run_query.sh).
CREATE VIEW person AS
SELECT
    person.id,
    person.name,
    person.emailAddress,
    person.creditCard,
    person.city,
    person.state,
    `dateTime`,
    person.extra
FROM ${NEXMARK_TABLE} WHERE event_type = 0;

CREATE VIEW auction AS
SELECT
    auction.id,
    auction.itemName,
    auction.description,
    auction.initialBid,
    auction.reserve,
    `dateTime`,
    auction.expires,
    auction.seller,
    auction.category,
    auction.extra
FROM ${NEXMARK_TABLE} WHERE event_type = 1;

CREATE VIEW bid AS
SELECT
    bid.auction,
    bid.bidder,
    bid.price,
    bid.channel,
    bid.url,
    `dateTime`,
    bid.extra
FROM ${NEXMARK_TABLE} WHERE event_type = 2;
