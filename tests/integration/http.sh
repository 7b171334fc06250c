#!/bin/sh
# http.sh - the job's HTTP endpoint, `sluice run --http` (src/cli/http*.c,
# docs/observability.md).  A job at parallelism 2 reads 110 rows from a
# file cut into two splits (10 of them late for a tumbling window) into a
# filter and, with a second table read from a pipe that the test holds
# open (so the job keeps running once the file is done), into a window
# aggregate over their UNION ALL, which waits for the pipe's watermark:
# - /metrics passes `promtool check metrics` (Debian's prometheus package,
#   installed by scripts/install-deps.sh) and its figures (rows read, rows
#   written by the filter's sink, late rows dropped) equal the job's final
#   --stats once the pipe is closed;
# - /jobs, /jobs/overview, /jobs/<id> (and by name), /jobs/<id>/checkpoints
#   and /jobs/<id>/vertices/<v>/watermarks answer Flink-shaped JSON (jq);
# - / is one self-contained page (no external script, style or font);
# - /pending and `sluice explain --pending` name the pipe's source as what
#   holds the window back (it read no row);
# - a corpus of malformed requests (http_fuzz.py) leaves it serving;
# - it refuses a non-loopback address without --http-allow-remote (status
#   2, nothing run) and serves there with it; 'rest.port' in the script
#   starts it as --http does; a taken port is an error, status 2.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
S="$(pwd)/$BUILD/sluice"
HERE="$(pwd)/tests/integration"
T=$(mktemp -d)
SPID=""
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL http: $*"; fail=1; }

for tool in curl jq python3; do
	command -v $tool >/dev/null 2>&1 || { echo "SKIP http.sh: no $tool"; exit 0; }
done

cat > "$T/job.sql" <<'EOF'
SET 'parallelism.default' = '2';
SET 'pipeline.name' = 'httpjob';
CREATE TABLE src (k STRING, ts TIMESTAMP(3), v BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'rows', 'format' = 'json');
CREATE TABLE idle (k STRING, ts TIMESTAMP(3), v BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'stdin', 'format' = 'json');
CREATE VIEW both_ AS SELECT * FROM src UNION ALL SELECT * FROM idle;
CREATE TABLE out1 (k STRING, v BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE out2 (k STRING, n BIGINT) WITH ('connector' = 'blackhole');
EXECUTE STATEMENT SET BEGIN
INSERT INTO out1 SELECT k, v FROM src WHERE v % 2 = 0;
INSERT INTO out2 SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE both_, DESCRIPTOR(ts),
  INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
END;
EOF
# 100 rows 0.5 s apart, then 10 rows at 00:00:01 (late: the watermark is at 29 s)
i=1
while [ $i -le 100 ]; do
	printf '{"k":"a%d","ts":"2026-08-01 00:00:%02d.%d","v":%d}\n' $((i % 3)) $((i / 2)) $((i % 2 * 5)) $i
	i=$((i + 1))
done > "$T/rows"
j=0
while [ $j -lt 10 ]; do
	printf '{"k":"a1","ts":"2026-08-01 00:00:01","v":%d}\n' $((1000 + j))
	j=$((j + 1))
done >> "$T/rows"

mkfifo "$T/in"
# two splits of the 6 KB file (docs/testing.md), one per source instance
(cd "$T" && SLUICE_TEST_SPLIT_BYTES=3000 exec "$S" run job.sql --http 127.0.0.1:0 --stats \
	< in > out 2> err) &
SPID=$!
exec 3> "$T/in"
PORT=""
for _ in $(seq 1 100); do
	PORT=$(sed -n 's|^sluice: serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err")
	[ -n "$PORT" ] && break
	sleep 0.05
done
[ -n "$PORT" ] || { bad "no 'serving' line:"; cat "$T/err"; exit 1; }
U="http://127.0.0.1:$PORT"

# sum FAMILY [LABEL-FILTER]: the sum of a family's samples in $T/metrics
sum() {
	grep "^$1{" "$T/metrics" | grep -- "${2:-}" | awk '{s += $NF} END {printf "%d", s}'
}
# wait until every row went through: 110 read, 55 into out1
for _ in $(seq 1 200); do
	curl -sf "$U/metrics" > "$T/metrics" || true
	if [ "$(sum sluice_num_records_out_total 'table="src"')" = 110 ] &&
	   [ "$(sum sluice_num_records_in_total 'table="out1"')" = 55 ] &&
	   [ "$(sum sluice_num_late_records_dropped_total)" = 10 ]; then
		break
	fi
	sleep 0.05
done
curl -sf "$U/metrics" > "$T/metrics"
curl -sfI "$U/metrics" | grep -qi '^content-type: text/plain; version=0.0.4' ||
	bad "/metrics content type"
if command -v promtool >/dev/null 2>&1; then
	promtool check metrics < "$T/metrics" > "$T/promtool" 2>&1 || {
		bad "promtool check metrics:"; cat "$T/promtool"; }
else
	echo "SKIP http.sh: promtool (Debian package prometheus) not installed: format not checked"
fi
read_=$(sum sluice_num_records_out_total 'table="src"')
w1=$(sum sluice_num_records_in_total 'table="out1"')
late=$(sum sluice_num_late_records_dropped_total)
[ "$read_" = 110 ] || bad "rows read $read_, want 110"
[ "$w1" = 55 ] || bad "out1 rows $w1, want 55"
[ "$late" = 10 ] || bad "late rows $late, want 10"
grep -q '^sluice_job_status{job_name="httpjob",status="RUNNING"} 1$' "$T/metrics" ||
	bad "job status RUNNING"
# every instance of the filter has a sample, and the exchanges their backpressure
[ "$(grep -c '^sluice_num_records_in_total{.*operator_name="Calc"' "$T/metrics")" -ge 2 ] ||
	bad "instances of Calc"
grep -q '^sluice_accumulated_back_pressured_time_seconds_total{job_name="httpjob",from_operator_id="[0-9]*",to_operator_id="[0-9]*",input="0",ship_strategy="[A-Z]*"} ' "$T/metrics" ||
	bad "no backpressure per exchange"
# watermarks: the file's source ended (+Inf), the pipe's has none yet (-Inf)
grep -q '^sluice_current_output_watermark_seconds{.*subtask_index="1",table="src"} +Inf$' "$T/metrics" ||
	bad "source src's watermark +Inf"
grep -q '^sluice_current_output_watermark_seconds{.*table="idle"} -Inf$' "$T/metrics" ||
	bad "source idle's watermark -Inf"

# REST
jid=$(curl -sf "$U/jobs" | jq -r '.jobs[0].id')
[ "$(curl -sf "$U/jobs" | jq -r '.jobs[0].status')" = RUNNING ] || bad "/jobs status"
[ "$(curl -sf "$U/jobs/overview" | jq -r '.jobs[0].name')" = httpjob ] || bad "/jobs/overview"
curl -sf "$U/jobs/$jid" > "$T/job.json" || bad "/jobs/<id>"
[ "$(jq '.vertices | length' "$T/job.json")" -ge 7 ] || bad "7 vertices: $(jq -c '.vertices|map(.name)' "$T/job.json")"
# (which instance reads which of the file's two ranges depends on timing:
# they come from a pool, docs/parallel.md §4.1; one may read both)
[ "$(jq -r '.vertices[] | select(.name == "Source: src") | .subtasks | length' "$T/job.json")" = 2 ] ||
	bad "two source instances"
[ "$(jq -r '[.vertices[] | select(.name == "Source: src") | .subtasks[].numRecordsOut] | add' "$T/job.json")" = 110 ] ||
	bad "the source instances read 110 rows"
[ "$(jq -r '.vertices[] | select(.name == "Source: src") | .metrics["write-records"]' "$T/job.json")" = 110 ] ||
	bad "/jobs/<id> source write-records"
[ "$(jq -r '[.vertices[] | .metrics.numLateRecordsDropped] | add' "$T/job.json")" = 10 ] ||
	bad "/jobs/<id> late rows"
[ "$(jq -r '.vertices[] | select(.name == "Calc") | .subtasks | length' "$T/job.json" | head -1)" = 2 ] ||
	bad "/jobs/<id> Calc subtasks"
[ "$(jq -r '[.plan.nodes[].inputs[]] | length' "$T/job.json")" -ge 5 ] || bad "plan inputs"
[ "$(jq -r '[.edges[] | select(.channels > 0)] | length' "$T/job.json")" -ge 1 ] || bad "exchanges"
[ "$(curl -sf "$U/jobs/httpjob" | jq -r .jid)" = "$jid" ] || bad "/jobs/<name>"
[ "$(curl -sf "$U/jobs/$jid/checkpoints" | jq -r .counts.completed)" = 0 ] || bad "checkpoints"
wagg=$(jq -r '.vertices[] | select(.name == "WindowAggregate") | .id' "$T/job.json")
[ "$(curl -sf "$U/jobs/$jid/vertices/$wagg/watermarks" | jq length)" = 4 ] || bad "watermarks"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$U/jobs/nope")" = 404 ] || bad "404"

# why no output: the window waits for the pipe's source, which read nothing
curl -sf "$U/pending" > "$T/pending" || bad "/pending"
grep -q '^#[0-9]* WindowAggregate waits for its input watermark, now -infinity' "$T/pending" &&
grep -q '^  held back by source idle: watermark -infinity (none yet), 0 rows read$' "$T/pending" &&
grep -q "it has read no row: .*'scan.watermark.idle-timeout'" "$T/pending" &&
grep -q '^  source src (instance 1 of 2): +infinity (ended), [0-9]* rows read$' "$T/pending" ||
	{ bad "/pending does not name the idle input:"; cat "$T/pending"; }
"$S" explain --pending "127.0.0.1:$PORT" > "$T/pending2" || bad "explain --pending: status $?"
# the same text but for times relative to now ("published 0.2 s ago")
grep -v '^job ' "$T/pending" | sed 's/[0-9.]* s ago/_ s ago/g' > "$T/p1"
grep -v '^job ' "$T/pending2" | sed 's/[0-9.]* s ago/_ s ago/g' > "$T/p2"
cmp -s "$T/p1" "$T/p2" || bad "explain --pending differs from /pending"

# the page: self-contained (nothing fetched from elsewhere)
curl -sf "$U/" > "$T/page.html"
grep -q '<svg id="graph"' "$T/page.html" || bad "page has no graph"
if grep -Eq '(src|href)=|@import|https?://[^w]' "$T/page.html"; then
	bad "page refers to something outside itself"
fi

python3 "$HERE/http_fuzz.py" "$PORT" 1 200 > "$T/fuzz" 2>&1 || { bad "fuzz:"; cat "$T/fuzz"; }
kill -0 "$SPID" 2>/dev/null || bad "the job died during the fuzzing"

# end of input: the final statistics agree with what /metrics said
exec 3>&-
wait "$SPID" || bad "job exit status $?"
SPID=""
grep -q "^source src: $read_ rows read" "$T/err" || bad "final stats: source"
grep -q "^sink out1: $w1 rows written" "$T/err" || bad "final stats: out1"
grep -q "WindowAggregate: $late late rows dropped" "$T/err" || bad "final stats: late"

# addresses
Q="CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '5');
CREATE TABLE o (a INT) WITH ('connector' = 'blackhole'); INSERT INTO o SELECT a FROM t;"
set +e
"$S" run -e "$Q" --http 0.0.0.0:0 > "$T/o" 2> "$T/e"; rc=$?
set -e
[ "$rc" = 2 ] && grep -q 'not a loopback address.*--http-allow-remote' "$T/e" ||
	{ bad "0.0.0.0 without --http-allow-remote: status $rc"; cat "$T/e"; }
grep -q 'rows read' "$T/e" && bad "the job ran although the endpoint was refused"
"$S" run -e "$Q" --http 0.0.0.0:0 --http-allow-remote > "$T/o" 2> "$T/e" ||
	bad "--http-allow-remote: status $?"
grep -q '^sluice: serving http://0.0.0.0:[0-9]*/' "$T/e" || bad "--http-allow-remote did not serve"
"$S" run -e "SET 'rest.port' = '0'; $Q" > "$T/o" 2> "$T/e" || bad "rest.port: status $?"
grep -q '^sluice: serving http://127.0.0.1:[0-9]*/' "$T/e" || bad "rest.port did not serve"
"$S" run -e "$Q" --http '[::1]:0' > "$T/o" 2> "$T/e" && grep -q 'serving http://\[::1\]' "$T/e" ||
	grep -q 'cannot listen' "$T/e" || bad "[::1]: $(cat "$T/e")"
python3 -c 'import socket,time,sys; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(10)' > "$T/port" &
PPID_=$!
for _ in $(seq 1 50); do [ -s "$T/port" ] && break; sleep 0.05; done
set +e
"$S" run -e "$Q" --http "127.0.0.1:$(cat "$T/port")" > "$T/o" 2> "$T/e"; rc=$?
set -e
kill $PPID_ 2>/dev/null || true
[ "$rc" = 2 ] && grep -q 'cannot listen on 127.0.0.1' "$T/e" || bad "a taken port: status $rc: $(cat "$T/e")"
set +e
"$S" run -e "$Q" --http 127.0.0.1 > "$T/o" 2> "$T/e"; rc=$?
set -e
[ "$rc" = 2 ] || bad "--http without a port: status $rc"

[ "$fail" = 0 ] && echo "ok   http endpoint"
exit $fail
