#!/bin/sh
# run.sh - builds every libFuzzer target tests/fuzz/fuzz_<name>.c and runs
# each for SECONDS (default 60) on a scratch copy of its seed corpus
# tests/fuzz/corpus/<name>/.  Called by `make fuzz` (FUZZ_SECONDS).
#
#   sh tests/fuzz/run.sh [SECONDS] [name ...]
#
# The engine (all of src/ except src/cli/) is compiled once per run with
# clang -fsanitize=fuzzer-no-link,address,undefined into build-fuzz/obj/;
# each target is linked against those objects with -fsanitize=fuzzer.  Binaries, scratch corpora, logs and crash
# artifacts go under build-fuzz/ (nothing in the tree is modified; copy an
# interesting input into tests/fuzz/corpus/<name>/ by hand).  The script
# prints one line per target (runs, seconds, result) and exits non-zero if
# any target failed to build or found a crash, leak or timeout.
# Targets run one after another, so SECONDS is the wall time per target.
# Environment: CLANG (default clang); FUZZ_REV=<commit> builds the engine
# from that commit's src/ and include/ (git archive into build-fuzz/tree)
# instead of the work tree, for a shared tree with edits in progress.
set -u
SECONDS_PER=${1:-60}
[ $# -gt 0 ] && shift
ONLY="$*"
cd "$(dirname "$0")/../.." || exit 2
CLANG=${CLANG:-clang}
OUT=build-fuzz
mkdir -p "$OUT"

if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "run.sh: $CLANG not found (install clang and libclang-rt-14-dev)" >&2
	exit 2
fi
ROOT=.
if [ -n "${FUZZ_REV:-}" ]; then
	ROOT=$OUT/tree
	rm -rf "$ROOT"
	mkdir -p "$ROOT"
	git archive "$FUZZ_REV" src include | tar -x -C "$ROOT" || exit 2
	echo "== building the engine from $FUZZ_REV ($(git rev-parse --short "$FUZZ_REV"))"
fi
SRC=$(find "$ROOT/src" -name '*.c' ! -path "$ROOT/src/cli/*" | sort)
PCRE=$(pkg-config --cflags --libs libpcre2-8 2>/dev/null || echo -lpcre2-8)
SAN="-g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
-I$ROOT/include -I$ROOT/src -D_GNU_SOURCE -std=gnu11 -w $(pkg-config --cflags libpcre2-8 2>/dev/null) \
$(pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql)"
FLAGS="$SAN -fsanitize=fuzzer,address,undefined"

# the engine, once: objects under build-fuzz/obj/ (2 compilers at a time)
OBJDIR=$OUT/obj
rm -rf "$OBJDIR"
echo "== building the engine with sanitizers"
export CLANG SAN OBJDIR ROOT
if ! printf '%s\n' $SRC | xargs -P 2 -I{} sh -c \
	'o="$OBJDIR/$(echo "{}" | sed "s|^$ROOT/||; s|/|_|g").o"; mkdir -p "$OBJDIR";
	 $CLANG $SAN -fsanitize=fuzzer-no-link,address,undefined -c "{}" -o "$o"' \
	>"$OUT/engine.build.log" 2>&1; then
	echo "FAIL: the engine does not build"; tail -20 "$OUT/engine.build.log"
	exit 1
fi
OBJS=$(ls "$OBJDIR"/*.o)

failed=""
summary=""
for f in tests/fuzz/fuzz_*.c; do
	t=$(basename "$f" .c)
	name=${t#fuzz_}
	if [ -n "$ONLY" ]; then
		case " $ONLY " in *" $name "*|*" $t "*) ;; *) continue ;; esac
	fi
	bin=$OUT/$t
	echo "== $t: building"
	# shellcheck disable=SC2086
	if ! $CLANG $FLAGS -o "$bin" "$f" $OBJS $PCRE $(pkg-config --libs rdkafka 2>/dev/null || echo -lrdkafka) -lsnappy -lzstd -lz -ldl -lm -lpthread >"$OUT/$t.build.log" 2>&1; then
		echo "FAIL $t: build failed"; tail -20 "$OUT/$t.build.log"
		failed="$failed $t"
		continue
	fi
	work=$OUT/corpus-$t
	rm -rf "$work" "$OUT/artifacts-$t"
	mkdir -p "$work" "$OUT/artifacts-$t"
	[ -d "tests/fuzz/corpus/$name" ] && cp tests/fuzz/corpus/"$name"/* "$work"/ 2>/dev/null
	log=$OUT/$t.log
	echo "== $t: running ${SECONDS_PER}s"
	"$bin" -max_total_time="$SECONDS_PER" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$OUT/artifacts-$t/" "$work" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	secs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	arts=$(ls "$OUT/artifacts-$t" 2>/dev/null | wc -l)
	line="$t: ${runs:-?} runs in ${SECONDS_PER}s (${secs:-?}/s, ${cov:-cov: ?}), $arts artifacts"
	if [ "$rc" != 0 ] || [ "$arts" != 0 ]; then
		echo "FAIL $line (exit $rc)"
		grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==' "$log" | head -20
		failed="$failed $t"
	else
		echo "ok   $line"
	fi
	summary="$summary
$line"
done
echo "== summary:$summary"
if [ -n "$failed" ]; then
	echo "fuzz: failures in:$failed (logs and artifacts in $OUT/)"
	exit 1
fi
echo "fuzz: no crashes"
