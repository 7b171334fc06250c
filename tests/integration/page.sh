#!/bin/sh
# page.sh - the live page at / of the job's HTTP endpoint (src/cli/http_page.c,
# docs/observability.md) in headless Chromium (Debian's chromium, installed
# by scripts/install-deps.sh; outside CI the test says SKIP without it, in CI
# (CI=true, as .ci/run is run) it fails).  An unbounded datagen job
# (400 rows/s into a tumbling window, parallelism 2) runs with --http; the
# page is loaded twice, two seconds apart, and its DOM (chromium
# --dump-dom after its scripts ran) must hold a graph box for every
# operator /jobs/<id> lists, the job's name and RUNNING, and the source's
# row count in the operators table must have grown between the two loads;
# the job checkpoints every 300 ms and the checkpoint table must list them;
# the pending text must show what the window waits for and the watermarks.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
S="$(pwd)/$BUILD/sluice"
T=$(mktemp -d)
SPID=""
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL page: $*"; fail=1; }

CHROME=""
for c in chromium chromium-browser google-chrome; do
	command -v $c >/dev/null 2>&1 && { CHROME=$c; break; }
done
if [ -z "$CHROME" ] || ! command -v curl >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1; then
	[ "${CI:-}" = true ] && { echo "FAIL page: no chromium, curl or jq in CI (scripts/install-deps.sh installs them)"; exit 1; }
	echo "SKIP page.sh: no chromium (apt-get install chromium), curl or jq"; exit 0
fi

cat > "$T/job.sql" <<'EOF'
SET 'parallelism.default' = '2';
SET 'pipeline.name' = 'pagejob';
SET 'execution.checkpointing.interval' = '300 ms';
CREATE TABLE gen (k INT, ts AS LOCALTIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '400',
        'fields.k.min' = '1', 'fields.k.max' = '20');
CREATE TABLE out (k INT, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts),
  INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
EOF
(cd "$T" && exec "$S" run job.sql --http 127.0.0.1:0 > out 2> err) &
SPID=$!
PORT=""
for _ in $(seq 1 100); do
	PORT=$(sed -n 's|^sluice: serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err")
	[ -n "$PORT" ] && break
	sleep 0.05
done
[ -n "$PORT" ] || { bad "no 'serving' line"; cat "$T/err"; exit 1; }
U="http://127.0.0.1:$PORT"

# dom N: the page's DOM after its scripts ran for 2 s of virtual time
dom() {
	HOME="$T" timeout 60 "$CHROME" --headless=new --no-sandbox --disable-gpu \
		--disable-quic --disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --user-data-dir="$T/profile$1" --virtual-time-budget=2000 \
		--dump-dom "$U/" > "$T/dom$1.html" 2> "$T/chrome$1.log" ||
		{ bad "chromium failed:"; tail -5 "$T/chrome$1.log"; }
}
# rows N: the source's rows out (column 5 of its row in the operators table)
rows() {
	tr '\n' ' ' < "$T/dom$1.html" | sed 's/<tr/\n<tr/g' | grep 'id="row-0"' |
		sed 's/<[^>]*>/|/g' | tr -s '|' | cut -d'|' -f6
}

sleep 0.5
dom 1
sleep 2
dom 2
for id in $(curl -sf "$U/jobs/pagejob" | jq -r '.vertices[].id'); do
	grep -q "id=\"op-$id\"" "$T/dom2.html" || bad "no graph box op-$id in the page"
done
[ "$(grep -o 'id="op-[0-9]*"' "$T/dom2.html" | wc -l)" -ge 4 ] || bad "fewer than 4 operators drawn"
grep -q '<span id="job">pagejob</span>' "$T/dom2.html" || bad "job name not shown"
grep -q '<span id="state">RUNNING</span>' "$T/dom2.html" || bad "state not shown"
grep -q 'class="edge' "$T/dom2.html" || bad "no edge drawn"
# the checkpoint history: a row per checkpoint, newest first
nck=$(tr '\n' ' ' < "$T/dom2.html" | sed 's/<tr/\n<tr/g' | grep -c '<td>COMPLETED</td><td>CHECKPOINT</td>')
[ "$nck" -ge 2 ] || bad "the checkpoint history shows $nck completed checkpoints, not 2 or more"
grep -q '<p id="ckcounts">[0-9]* completed, 0 failed</p>' "$T/dom2.html" || bad "no checkpoint counts"
# why no output and every watermark (the text of /pending): the window
# waits for its input watermark, and the source's watermark is listed
grep -q '<pre id="pending">job pagejob: running' "$T/dom2.html" || bad "no pending text"
grep -q 'WindowAggregate waits for its input watermark' "$T/dom2.html" || bad "the window's wait not shown"
grep -q '^watermarks:' "$T/dom2.html" || bad "no watermarks section"
grep -q '^  source gen' "$T/dom2.html" || bad "the source's watermark not listed"
r1=$(rows 1) r2=$(rows 2)
if [ -z "$r1" ] || [ -z "$r2" ] || [ "$r2" -le "$r1" ]; then
	bad "the source's rows did not move between the loads: '$r1' then '$r2'"
fi
kill -TERM "$SPID"
wait "$SPID" || bad "job exit status $? after SIGTERM"
SPID=""
[ "$fail" = 0 ] && echo "ok   page in headless chromium (source rows $r1 -> $r2)"
exit $fail
