#!/bin/sh
# bench/nexmark/run_query.sh - runs one query of Flink's Nexmark suite with
# sluice, from the files as nexmark/nexmark publishes them: ddl_gen.sql (the
# 'nexmark' source), ddl_views.sql (person, auction, bid) and queries/qN.sql
# (its sink and INSERT), after substituting their ${...} variables as Flink's
# QueryRunner does.
#
# Usage: sh bench/nexmark/run_query.sh BUILD_DIR QUERY [sluice run options...]
#   QUERY is q0 .. q22.  The job starts with ADD JAR of q14's function
#   library (bench/nexmark/udf/nexmark_udf.c, built into BUILD/bench/nexmark/).  Environment (all optional):
#   NEXMARK_EVENTS (1000000), NEXMARK_TPS (10000000, Flink's V1 suite),
#   NEXMARK_WORK (a new temporary directory: the job file, q10's output,
#   q13's side input), NEXMARK_SINK=print turns every blackhole sink into a
#   print sink (to look at results), NEXMARK_JOB=path only writes the job,
#   NEXMARK_CONF (bench/nexmark/conf.sql: Flink's published table options,
#   mini-batch among them; "none" leaves them out, or another file of SETs)
#   goes after ADD JAR, so the Flink harness (flink_side.sh) runs the job
#   with the same options.
set -eu

BUILD=${1:?usage: run_query.sh BUILD_DIR QUERY [options]}
Q=${2:?usage: run_query.sh BUILD_DIR QUERY [options]}
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
EVENTS=${NEXMARK_EVENTS:-1000000}
TPS=${NEXMARK_TPS:-10000000}
WORK=${NEXMARK_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/nexmark.XXXXXX")}
mkdir -p "$WORK/data"

# q13's side input: Flink's side_input_gen.sh writes "i,i" for i in [0, 10000)
if [ "$Q" = q13 ] && [ ! -f "$WORK/data/side_input.txt" ]; then
	awk 'BEGIN { for (i = 0; i < 10000; i++) print i "," i }' > "$WORK/data/side_input.txt"
fi

# q14's count_char: Flink's runner has the nexmark jar on its class path;
# sluice gets the same function from bench/nexmark/udf/nexmark_udf.c, built
# here into BUILD/bench/nexmark/ and added with ADD JAR before the query
UDF_SRC=$HERE/udf/nexmark_udf.c
UDF_LIB=$(cd "$BUILD" && pwd)/bench/nexmark/libnexmark_udf.so
if [ ! -f "$UDF_LIB" ] || [ "$UDF_SRC" -nt "$UDF_LIB" ]; then
	mkdir -p "$(dirname "$UDF_LIB")"
	${CC:-cc} -shared -fPIC -O2 -Wall -Wextra -Werror -I"$HERE/../../include" \
		-o "$UDF_LIB.tmp.$$" "$UDF_SRC" && mv "$UDF_LIB.tmp.$$" "$UDF_LIB"
fi

CONF=${NEXMARK_CONF:-$HERE/conf.sql}
[ "$CONF" = none ] && CONF=/dev/null
JOB=${NEXMARK_JOB:-$WORK/$Q.sql}
{ echo "ADD JAR '$UDF_LIB';"; cat "$CONF" "$HERE/ddl_gen.sql" "$HERE/ddl_views.sql" "$HERE/queries/$Q.sql"; } |
sed -e "s|\${TPS}|$TPS|g" \
    -e "s|\${EVENTS_NUM}|$EVENTS|g" \
    -e "s|\${PERSON_PROPORTION}|1|g" \
    -e "s|\${AUCTION_PROPORTION}|3|g" \
    -e "s|\${BID_PROPORTION}|46|g" \
    -e "s|\${NEXMARK_TABLE}|datagen|g" \
    -e "s|\${NEXMARK_DIR}|$WORK|g" \
    -e "s|\${FLINK_HOME}|$WORK|g" \
    -e "s|\${SUBMIT_TIME}|$(date +%s)|g" > "$JOB"
if [ "${NEXMARK_SINK:-}" = print ]; then
	sed -i "s/'connector' = 'blackhole'/'connector' = 'print'/" "$JOB"
fi
[ -n "${NEXMARK_JOB:-}" ] && exit 0
exec "$BUILD/sluice" run "$JOB" "$@"
