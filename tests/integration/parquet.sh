#!/bin/sh
# parquet.sh - the 'parquet' format end to end, checked against readers and
# writers that share no code with sluice (docs/parquet.md, docs/testing.md):
# DuckDB (npm @duckdb/node-api) and hyparquet (npm, pure JavaScript),
# installed outside the repository by tests/parquet/peers.sh.
#
#   1. 3000 rows of every type Parquet stores, with NULLs and each type's
#      extremes (tests/parquet/gen.py), go JSON -> sluice -> JSON: the
#      reference.
#   2. The same rows go JSON -> sluice -> Parquet under five option sets
#      (each codec, dictionary on and off, data pages v1 and v2, small row
#      groups and pages, a rolling size that makes several files).  Every
#      file is read by DuckDB (read_parquet) with the same values as the
#      reference (read by DuckDB from JSON), and by hyparquet with the same
#      values as DuckDB reads; parquet_metadata shows the codec asked for
#      and, where expected, dictionary pages and several row groups; and
#      sluice reads the directory back (Parquet -> JSON) equal to the
#      reference.
#   3. DuckDB writes the reference rows as Parquet (COPY ... TO) with each
#      codec and both format versions (V2: DELTA encodings, data page v2),
#      small row groups; sluice reads each file equal to the reference.
#   4. A PARTITIONED BY table written as Parquet and read back.
#   5. Errors: damaged files (cut; pages zeroed) and a column of the wrong
#      type are refused naming the file and the column; a record connector
#      (stdout) refuses the format.  Under column pruning a column the query
#      does not read is not loaded: the same wrong type there is no error.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
ROWS=${ROWS:-3000}
command -v node >/dev/null 2>&1 || { echo "skip: node not found"; exit 77; }
PEERS=$(sh "$ROOT/tests/parquet/peers.sh") || { echo "FAIL: cannot install the peers"; exit 1; }
export PEERS
PEER="node $ROOT/tests/parquet/peer.mjs"
W=$(mktemp -d /tmp/sluice-parquet.XXXXXX)
trap 'rm -rf "$W"' EXIT
export LC_ALL=C
fail=0
python3 "$ROOT/tests/parquet/gen.py" "$ROWS" 7 > "$W/in.jsonl"

COLS="b BOOLEAN, t TINYINT, s SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE,
  d1 DECIMAL(5, 2), d2 DECIMAL(15, 3), d3 DECIMAL(30, 4), str STRING, bt BYTES, dt DATE,
  tm TIME(3), ts TIMESTAMP(3), ts6 TIMESTAMP(6), ltz TIMESTAMP_LTZ(3),
  r ROW<a INT, b STRING>"

job() { # src-path src-format dst-path dst-format [extra sink options]
	cat <<SQL
CREATE TABLE src ($COLS) WITH ('connector' = 'filesystem', 'path' = '$1', 'format' = '$2');
CREATE TABLE dst ($COLS) WITH ('connector' = 'filesystem', 'path' = '$3', 'format' = '$4'$5);
INSERT INTO dst SELECT * FROM src;
SQL
}

run() { # name src-path src-format dst-path dst-format [extra]
	job "$2" "$3" "$4" "$5" "${6:-}" > "$W/$1.sql"
	if ! "$SLUICE" run "$W/$1.sql" > "$W/$1.log" 2>&1; then
		echo "FAIL $1: sluice failed"; cat "$W/$1.log"; fail=1; return 1
	fi
}

# DuckDB's canonical rows: the same casts over any source (BT: the bytes)
canon_sql() { # from-clause bt-expr
	echo "SELECT b::BOOLEAN b, t::TINYINT t, s::SMALLINT s, i::INTEGER i, l::BIGINT l,
	  f::FLOAT f, d::DOUBLE d, d1::DECIMAL(5,2) d1, d2::DECIMAL(15,3) d2,
	  d3::DECIMAL(30,4) d3, str::VARCHAR str, $2 bt, dt::DATE dt, tm::TIME tm,
	  ts::TIMESTAMP ts, ts6::TIMESTAMP ts6, ltz::TIMESTAMPTZ ltz,
	  r::STRUCT(a INTEGER, b VARCHAR) r FROM $1"
}
# hyparquet gives JS numbers, Dates (milliseconds, truncated) and bytes
HYP_SQL="SELECT b::VARCHAR b, t, s, i, l::VARCHAR l, f::DOUBLE f, d, d1::DOUBLE d1,
  d2::DOUBLE d2, d3::DOUBLE d3, str, hex(bt) bt, epoch_ms(dt::TIMESTAMP) dt,
  epoch_ms(DATE '1970-01-01' + tm) tm, epoch_ms(ts) ts,
  CASE WHEN epoch_us(ts6) < 0 THEN -((-epoch_us(ts6)) // 1000) ELSE epoch_us(ts6) // 1000 END ts6,
  epoch_ms(ltz) ltz, r FROM read_parquet('{f}')"

# 1. the reference
run ref "$W/in.jsonl" json "$W/ref" json || exit 1
cat "$W"/ref/part-* | sort > "$W/ref.rows"
[ "$(wc -l < "$W/ref.rows")" = "$ROWS" ] || { echo "FAIL: the reference has $(wc -l < "$W/ref.rows") rows"; exit 1; }
# DuckDB reads the reference's lines: decimals by their digits (its JSON
# reader would pass them through a double), the rest with its JSON functions
REFSRC="(SELECT line->>'b' b, line->>'t' t, line->>'s' s, line->>'i' i, line->>'l' l,
  line->>'f' f, line->>'d' d, NULLIF(regexp_extract(line, '\"d1\":(-?[0-9.]+)', 1), '') d1,
  NULLIF(regexp_extract(line, '\"d2\":(-?[0-9.]+)', 1), '') d2,
  NULLIF(regexp_extract(line, '\"d3\":(-?[0-9.]+)', 1), '') d3, line->>'str' str,
  line->>'bt' bt, line->>'dt' dt, line->>'tm' tm, line->>'ts' ts, line->>'ts6' ts6,
  line->>'ltz' ltz, (line->'r') r
  FROM (SELECT unnest(string_split(trim(content, chr(10)), chr(10))) line
        FROM read_text('$W/ref/part-*')))"
$PEER sql "$(canon_sql "$REFSRC" "from_base64(bt)")" | sort > "$W/ref.duck" ||
	{ echo "FAIL: DuckDB cannot read the reference"; exit 1; }
[ "$(wc -l < "$W/ref.duck")" = "$ROWS" ] || { echo "FAIL: DuckDB read $(wc -l < "$W/ref.duck") reference rows"; exit 1; }

# Statistics: per row group and column, min_value, max_value and
# null_count of the footer (parquet_metadata) equal what DuckDB computes
# from the row group's rows; prints "total bad"
STATS_AGG=""
for c in b t s i l f d d1 d2 d3 str bt dt tm ts ts6 ltz; do
	STATS_AGG="$STATS_AGG UNION ALL SELECT '$c' p, fn, g, min($c)::VARCHAR mn, max($c)::VARCHAR mx,
	  (count(*) - count($c))::BIGINT nc FROM d GROUP BY fn, g"
done
STATS_AGG=${STATS_AGG# UNION ALL }
stats_check() { # files (a glob)
	$PEER sql "WITH rg AS (SELECT DISTINCT file_name fn, row_group_id g, row_group_num_rows n
	    FROM parquet_metadata('$1')),
	  rs AS (SELECT fn, g, n, sum(n) OVER (PARTITION BY fn ORDER BY g) - n AS st FROM rg),
	  d AS (SELECT x.*, rs.fn, rs.g
	    FROM read_parquet('$1', file_row_number = true, filename = true) x
	    JOIN rs ON x.filename = rs.fn AND x.file_row_number >= rs.st
	      AND x.file_row_number < rs.st + rs.n),
	  agg AS ($STATS_AGG),
	  m AS (SELECT file_name fn, row_group_id g, path_in_schema p, stats_min_value mn,
	    stats_max_value mx, stats_null_count nc FROM parquet_metadata('$1'))
	  SELECT count(*) total, count(*) FILTER (WHERE m.mn IS DISTINCT FROM agg.mn
	    OR m.mx IS DISTINCT FROM agg.mx OR m.nc != agg.nc) bad FROM m JOIN agg USING (fn, g, p)" |
	sed 's/.*"total":"\{0,1\}\([0-9]*\)"\{0,1\},"bad":"\{0,1\}\([0-9]*\).*/\1 \2/'
}

# 2. sluice writes
check_written() { # name codec expect-dict(0/1) min-files min-rowgroups
	n=$1
	files=$(ls "$W/$n"/part-*.parquet 2>/dev/null)
	nf=$(echo "$files" | grep -c .)
	[ "$nf" -ge "$4" ] || { echo "FAIL $n: $nf files, expected >= $4"; fail=1; }
	ls -a "$W/$n" | grep -q '^\.' && ls -a "$W/$n" | grep -v '^\.\.\?$' | grep -q '^\.' &&
		{ echo "FAIL $n: hidden files left"; fail=1; }
	$PEER sql "$(canon_sql "read_parquet('$W/$n/part-*.parquet')" "bt::BLOB")" | sort > "$W/$n.duck"
	if ! cmp -s "$W/$n.duck" "$W/ref.duck"; then
		echo "FAIL $n: DuckDB reads other values than the reference"
		diff "$W/ref.duck" "$W/$n.duck" | head -6; fail=1
	fi
	out=$($PEER hyparquet "$W/$n" "$HYP_SQL" 2>&1) || { echo "FAIL $n: hyparquet: $out"; fail=1; }
	meta=$($PEER sql "SELECT string_agg(DISTINCT compression, ',') c,
	  count(DISTINCT (file_name, row_group_id)) g, bool_or(encodings LIKE '%RLE_DICTIONARY%') dict,
	  bool_and(stats_null_count IS NOT NULL) nc
	  FROM parquet_metadata('$W/$n/part-*.parquet')")
	echo "$meta" | grep -q "\"c\":\"$2\"" || { echo "FAIL $n: codec: $meta"; fail=1; }
	echo "$meta" | grep -q "\"nc\":true" || { echo "FAIL $n: null counts missing: $meta"; fail=1; }
	if [ "$3" = 1 ]; then want=true; else want=false; fi
	echo "$meta" | grep -q "\"dict\":$want" || { echo "FAIL $n: dictionary $want expected: $meta"; fail=1; }
	g=$(echo "$meta" | sed -n 's/.*"g":"\{0,1\}\([0-9]*\).*/\1/p')
	[ "${g:-0}" -ge "$5" ] || { echo "FAIL $n: $g row groups, expected >= $5"; fail=1; }
	set -- $(stats_check "$W/$n/part-*.parquet")
	nstats=${1:-0}
	[ "$nstats" -gt 0 ] && [ "${2:-1}" = 0 ] ||
		{ echo "FAIL $n: statistics: ${1:-?} chunks checked, ${2:-?} wrong"; fail=1; }
	# read back by sluice
	run "$n-back" "$W/$n" parquet "$W/$n-back" json || return
	cat "$W/$n-back"/part-* | sort > "$W/$n-back.rows"
	if ! cmp -s "$W/$n-back.rows" "$W/ref.rows"; then
		echo "FAIL $n: sluice reads its Parquet back with other values"
		diff "$W/ref.rows" "$W/$n-back.rows" | head -6; fail=1
	fi
	echo "ok   $n: $nf files, $g row groups, DuckDB, hyparquet and sluice read the same rows, $nstats chunk statistics right"
}

run w_default "$W/in.jsonl" json "$W/w_default" parquet &&
	check_written w_default SNAPPY 1 1 1
run w_zstd "$W/in.jsonl" json "$W/w_zstd" parquet ", 'parquet.compression' = 'zstd',
  'parquet.block.size' = '16kb', 'parquet.page.size' = '2kb'" &&
	check_written w_zstd ZSTD 1 1 3
run w_gzip "$W/in.jsonl" json "$W/w_gzip" parquet ", 'parquet.compression' = 'GZIP',
  'parquet.enable.dictionary' = 'false', 'parquet.writer.version' = 'PARQUET_2_0'" &&
	check_written w_gzip GZIP 0 1 1
run w_plain "$W/in.jsonl" json "$W/w_plain" parquet ", 'parquet.compression' = 'uncompressed',
  'parquet.writer.version' = 'PARQUET_2_0', 'parquet.page.size' = '1kb',
  'parquet.block.size' = '64kb'" &&
	check_written w_plain UNCOMPRESSED 1 1 2
run w_roll "$W/in.jsonl" json "$W/w_roll" parquet ", 'sink.rolling-policy.file-size' = '20kb',
  'parquet.block.size' = '8kb'" &&
	check_written w_roll SNAPPY 1 3 3

# 4. a PARTITIONED BY table: part files per directory, read back with the
# partition values from the directory names
cat > "$W/part.sql" <<SQL
CREATE TABLE src ($COLS) WITH ('connector' = 'filesystem', 'path' = '$W/in.jsonl', 'format' = 'json');
CREATE TABLE dst ($COLS) PARTITIONED BY (b) WITH ('connector' = 'filesystem', 'path' = '$W/part', 'format' = 'parquet');
INSERT INTO dst SELECT * FROM src;
SQL
if "$SLUICE" run "$W/part.sql" > "$W/part.log" 2>&1 &&
	printf '%s\n' "CREATE TABLE p ($COLS) PARTITIONED BY (b) WITH ('connector' = 'filesystem', 'path' = '$W/part', 'format' = 'parquet');" \
	"CREATE TABLE back ($COLS) WITH ('connector' = 'filesystem', 'path' = '$W/part-back', 'format' = 'json');" \
	"INSERT INTO back SELECT * FROM p;" > "$W/part-back.sql" &&
	"$SLUICE" run "$W/part-back.sql" >> "$W/part.log" 2>&1; then
	nd=$(ls "$W/part" | wc -l)
	cat "$W"/part-back/part-* | sort > "$W/part-back.rows"
	if [ "$nd" = 3 ] && cmp -s "$W/part-back.rows" "$W/ref.rows"; then
		echo "ok   partitioned: $nd directories (b=true, b=false, NULL), read back equal"
	else
		echo "FAIL partitioned: $nd directories, or the rows read back differ"
		diff "$W/ref.rows" "$W/part-back.rows" | head -4; fail=1
	fi
else
	echo "FAIL partitioned: sluice failed"; cat "$W/part.log"; fail=1
fi

# zeros in DOUBLE statistics (the specification's rule): a zero min is
# written -0.0 and a zero max +0.0, whichever zero the data held
printf '{"d":0.0}\n{"d":2.0}\n' > "$W/z1.jsonl"
printf '{"d":-3.0}\n{"d":-0.0}\n' > "$W/z2.jsonl"
for z in z1 z2; do
	printf '%s\n' "CREATE TABLE s (d DOUBLE) WITH ('connector' = 'filesystem', 'path' = '$W/$z.jsonl', 'format' = 'json');" \
		"CREATE TABLE o (d DOUBLE) WITH ('connector' = 'filesystem', 'path' = '$W/$z', 'format' = 'parquet');" \
		"INSERT INTO o SELECT * FROM s;" > "$W/$z.sql"
	"$SLUICE" run "$W/$z.sql" > "$W/$z.log" 2>&1 || { echo "FAIL $z: sluice failed"; fail=1; }
	zs=$($PEER sql "SELECT stats_min_value mn, stats_max_value mx FROM parquet_metadata('$W/$z/*.parquet')")
	case "$z:$zs" in
	'z1:{"mn":"-0.0","mx":"2.0"}'|'z2:{"mn":"-3.0","mx":"0.0"}') ;;
	*) echo "FAIL $z: zero statistics $zs"; fail=1 ;;
	esac
done
echo "ok   zeros in statistics: min -0.0, max +0.0"

# 3. DuckDB writes, sluice reads
for v in V1 V2; do
	for c in snappy zstd gzip uncompressed; do
		n=duck_${v}_$c
		mkdir -p "$W/$n"
		if ! $PEER sql "COPY ($(canon_sql "$REFSRC" "from_base64(bt)")) TO '$W/$n/data.parquet' (FORMAT parquet,
			COMPRESSION $c, PARQUET_VERSION $v, ROW_GROUP_SIZE 1000)" > "$W/$n.log" 2>&1; then
			echo "FAIL $n: DuckDB cannot write"; cat "$W/$n.log"; fail=1; continue
		fi
		run "$n-back" "$W/$n" parquet "$W/$n-back" json || continue
		cat "$W/$n-back"/part-* | sort > "$W/$n-back.rows"
		if ! cmp -s "$W/$n-back.rows" "$W/ref.rows"; then
			echo "FAIL $n: sluice reads DuckDB's file with other values"
			diff "$W/ref.rows" "$W/$n-back.rows" | head -6; fail=1
			continue
		fi
		enc=$($PEER sql "SELECT string_agg(DISTINCT encodings, ' | ') e FROM parquet_metadata('$W/$n/data.parquet')")
		echo "ok   $n: sluice reads DuckDB's file equal to the reference ($enc)"
	done
done

# 5. errors name the file and the column: a cut file, and a file whose
# pages are overwritten with zeros (the footer intact)
for kind in cut zeroed; do
	mkdir -p "$W/bad-$kind"
	f=$W/bad-$kind/$kind.parquet
	if [ $kind = cut ]; then
		head -c 300 "$W/duck_V1_snappy/data.parquet" > "$f"
	else
		cp "$W/w_zstd/"part-*.parquet "$f"
		dd if=/dev/zero of="$f" bs=1 seek=200 count=3000 conv=notrunc 2>/dev/null
	fi
	job "$W/bad-$kind" parquet "$W/bad-$kind-out" json "" > "$W/bad.sql"
	if "$SLUICE" run "$W/bad.sql" > "$W/bad.log" 2>&1; then
		echo "FAIL: a damaged file ($kind) was read"; fail=1
	elif ! grep -q "parquet file '$f'" "$W/bad.log"; then
		echo "FAIL: the damaged file's ($kind) error does not name it:"; cat "$W/bad.log"; fail=1
	else
		echo "ok   damaged file ($kind): $(grep -o "parquet file.*" "$W/bad.log" | head -1)"
	fi
done
cat > "$W/type.sql" <<SQL
CREATE TABLE src (str INT) WITH ('connector' = 'filesystem', 'path' = '$W/w_default', 'format' = 'parquet');
CREATE TABLE dst (str INT) WITH ('connector' = 'filesystem', 'path' = '$W/type-out', 'format' = 'json');
INSERT INTO dst SELECT * FROM src;
SQL
if "$SLUICE" run "$W/type.sql" > "$W/type.log" 2>&1; then
	echo "FAIL: a STRING column was read as INT"; fail=1
elif ! grep -q "column 'str' is BYTE_ARRAY in the file and cannot be read as INT" "$W/type.log"; then
	echo "FAIL: the type error is not as expected:"; cat "$W/type.log"; fail=1
else
	echo "ok   wrong type: $(grep -o "column 'str'.*" "$W/type.log" | head -1)"
fi
# column pruning (docs/parquet.md): a column the query does not read is not
# loaded, so the same wrong type there is no error, and the columns read
# are those of the reference (the first column of the JSON output: i)
cat > "$W/prune.sql" <<SQL
CREATE TABLE src (i INT, str INT) WITH ('connector' = 'filesystem', 'path' = '$W/w_default', 'format' = 'parquet');
CREATE TABLE dst (i INT) WITH ('connector' = 'filesystem', 'path' = '$W/prune-out', 'format' = 'json');
INSERT INTO dst SELECT i FROM src;
SQL
if ! "$SLUICE" run "$W/prune.sql" > "$W/prune.log" 2>&1; then
	echo "FAIL: an unread column of the wrong type stopped a pruned scan:"; cat "$W/prune.log"; fail=1
elif [ "$(cat "$W"/prune-out/* | sort | md5sum)" != \
       "$(python3 -c 'import json,sys
for l in sys.stdin: print(json.dumps({"i": json.loads(l)["i"]}, separators=(",", ":")))' < "$W/in.jsonl" | sort | md5sum)" ]; then
	echo "FAIL: the pruned scan's column i differs from the input"; fail=1
else
	echo "ok   column pruning: the unread column is not loaded (no type error), i as written"
fi
# a record connector cannot take a file format (stdout would buffer rows
# it never writes)
printf '%s\n' "CREATE TABLE o (d DOUBLE) WITH ('connector' = 'stdout', 'format' = 'parquet');" \
	"INSERT INTO o VALUES (1.0);" > "$W/stdout.sql"
if "$SLUICE" run "$W/stdout.sql" > "$W/stdout.log" 2>&1 ||
	! grep -q "sink 'o': format 'parquet' is a file format: only the 'filesystem' connector can write it" "$W/stdout.log"; then
	echo "FAIL: stdout with format parquet:"; cat "$W/stdout.log"; fail=1
else
	echo "ok   stdout refuses format parquet"
fi
[ "$fail" = 0 ] && echo "parquet: all checks passed"
exit "$fail"
