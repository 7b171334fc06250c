#!/bin/sh
# demo.sh - `make demo`: runs the hourly-revenue pipeline (the seed's Flink
# SQL over examples/data/orders.jsonl) and prints what it wrote.
set -e
cd "$(dirname "$0")/.."
rm -rf out/hourly_revenue
echo "== sluice run examples/hourly_revenue/job.sql"
./build/sluice run examples/hourly_revenue/job.sql
echo
echo "== out/hourly_revenue (revenue per user and hour)"
cat out/hourly_revenue/part-* | sort
