#!/bin/sh
# kafka_crash.sh - the short exactly-once proof with a Kafka source for
# `make test` (tests/kafka/crash.sh: 200 000 orders in 8 partitions of the
# mock cluster, 5 SIGKILLs, checkpoints through the forked writer while
# librdkafka's threads run; about 15 s).  `make kafka-torture` runs the
# long version.
set -e
cd "$(dirname "$0")/../.."
bash tests/kafka/crash.sh 200000 5 8
