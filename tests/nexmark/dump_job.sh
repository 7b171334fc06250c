#!/bin/sh
# dump_job.sh - prints a job that writes the Nexmark generator's events, as
# bench/nexmark's DDL defines them at a rate and an event count, to JSON
# files: the wide table's physical columns (event_type and the person,
# auction and bid ROWs) into a filesystem sink.  The tests that compare
# sluice's answers with other readers of the same events use it
# (tests/integration/nexmark.sh, tests/nexmark/check.sh).
#
# Usage: sh tests/nexmark/dump_job.sh BUILD WORKDIR RATE EVENTS OUTDIR > job.sql
#   (from the repository's root; WORKDIR receives bench/nexmark/run_query.sh's
#   files, among them base.sql)
set -eu
BUILD=$1 WORK=$2
NEXMARK_WORK=$WORK NEXMARK_JOB=$WORK/base.sql NEXMARK_TPS=$3 NEXMARK_EVENTS=$4 \
	sh bench/nexmark/run_query.sh "$BUILD" q0
sed -n '/^CREATE TABLE datagen/,/^);/p' "$WORK/base.sql"
cat <<SQL
CREATE TABLE dump (
    event_type INT,
    person ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR,
               city VARCHAR, state VARCHAR, \`dateTime\` TIMESTAMP(3), extra VARCHAR>,
    auction ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT,
                reserve BIGINT, \`dateTime\` TIMESTAMP(3), expires TIMESTAMP(3),
                seller BIGINT, category BIGINT, extra VARCHAR>,
    bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
            \`dateTime\` TIMESTAMP(3), extra VARCHAR>
) WITH ('connector' = 'filesystem', 'path' = '$5', 'format' = 'json');
INSERT INTO dump SELECT event_type, person, auction, bid FROM datagen;
SQL
