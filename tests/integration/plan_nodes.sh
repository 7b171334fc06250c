#!/bin/sh
# plan_nodes.sh - the planner builds plan nodes, never operators (issue 9;
# docs/architecture.md "The path of a query"):
#   1. no file of src/plan/ calls an operator constructor (sl_op_*_new),
#      sl_graph_add / sl_graph_connect or the runtime's sl_instantiate:
#      operators come only from the runtime's constructor table
#      (src/runtime/instantiate.c), after planning;
#   2. what an operator's constructor would refuse is refused while
#      planning, so `sluice explain` (which instantiates nothing) gives the
#      same error as `sluice run`, with the position: SESSION windows over
#      string MIN/MAX and DISTINCT aggregates, CASE returning a ROW, more
#      than 64 GROUP BY keys.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
T=$(mktemp -d /tmp/sluice-plan-nodes.XXXXXX)
trap 'rm -rf "$T"' EXIT

# 1. comment lines (starting with '*' or '/*') may name them
if grep -nE '\bsl_op_[a-z_]+_new[[:space:]]*\(|\bsl_graph_(add|connect)[[:space:]]*\(|\bsl_instantiate[[:space:]]*\(' \
	src/plan/*.c src/plan/*.h | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*)'; then
	echo "FAIL: src/plan/ builds operators (above)"; exit 1
fi

# 2.
DDL="CREATE TABLE t (k STRING, s STRING, r ROW<a INT>, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'push');"
S="TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' MINUTE))"
check() { # query, expected message
	printf '%s\n%s\n' "$DDL" "$1" > "$T/job.sql"
	for cmd in explain run; do
		if "$BUILD/sluice" $cmd "$T/job.sql" > /dev/null 2> "$T/err.$cmd"; then
			echo "FAIL: $cmd accepted: $1"; exit 1
		fi
		grep -qF "$2" "$T/err.$cmd" || { echo "FAIL: $cmd message of: $1"; cat "$T/err.$cmd"; exit 1; }
	done
	cmp -s "$T/err.explain" "$T/err.run" \
		|| { echo "FAIL: explain and run differ: $1"; cat "$T/err.explain" "$T/err.run"; exit 1; }
}
check "SELECT k, MAX(s) FROM $S GROUP BY k, window_start, window_end" \
	"line 2, column 11: MIN/MAX/FIRST_VALUE/LAST_VALUE over strings in SESSION windows are not supported yet"
check "SELECT k, COUNT(DISTINCT s) FROM $S GROUP BY k, window_start, window_end" \
	"line 2, column 11: DISTINCT aggregates in SESSION windows are not supported yet"
check "SELECT k, MAX(s) FROM t GROUP BY k, SESSION(ts, INTERVAL '1' MINUTE)" \
	"line 2, column 11: MIN/MAX/FIRST_VALUE/LAST_VALUE over strings in SESSION windows"
check "SELECT CASE WHEN k = 'a' THEN r ELSE r END FROM t" \
	"line 2, column 8: CASE returning a ROW is not supported"
check "SELECT IF(k = 'a', r, r) FROM t" "line 2, column 8: CASE returning a ROW is not supported"
K=$(seq 1 65 | sed "s/.*/CONCAT(k, '&')/" | paste -sd, -)
check "SELECT COUNT(*) FROM t GROUP BY $K" "line 2, column 1: at most 64 GROUP BY keys are supported"
echo "ok plan_nodes"
