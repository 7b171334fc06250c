# sluice - one plain GNU Makefile.
#
#   make            build build/sluice and build/libsluice.a
#   make demo       install deps, build, run the hourly-revenue example
#   make test       install deps, build, run every test; last line "N passed, N failed"
#   make test-long  the suites make test runs small, at their earlier sizes
#   make slt-parallel  every slt file at parallelism SLT_PARALLELISM (3; also in make test)
#   make bench      benchmarks (not timed tests)
#   make bench-par  the parallelism benchmark alone (window jobs at 1 and 2)
#   make test-pg    the long PostgreSQL crash test (the short one is in make test)
#   make test-kafka-group  several processes sharing a Kafka topic (real broker; also in make test)
#   make crash-parallel  the crash tests at parallelism 2 and rescaled, 20 kills per backend
#   make fuzz       build the libFuzzer targets (clang) and run each for FUZZ_SECONDS
#   make asan       build and run the tests under AddressSanitizer/UBSan
#   make tsan       build what starts threads with ThreadSanitizer and run it
#   make install    install binary, library, headers, pkg-config file and man
#                   page under PREFIX (default /usr/local; DESTDIR for staging)
#
# Every .c file under src/ goes into libsluice.a except src/cli/ (the
# binary).  Unit tests are tests/unit/test_*.c, one cmocka program each,
# linked with the shared harness tests/unit/harness.c.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g
CFLAGS  ?= $(OPT)
WARN    := -Wall -Wextra -Wmissing-prototypes -Wno-unused-parameter -Wno-sign-compare -Wshadow=local -Wvla -Wno-format-truncation
CPPFLAGS_ALL := -Iinclude -Isrc -D_GNU_SOURCE
CFLAGS_ALL   := -std=gnu11 $(WARN) -fvisibility=hidden -fno-strict-aliasing $(CFLAGS)
PCRE_CFLAGS  := $(shell pkg-config --cflags libpcre2-8 2>/dev/null)
PCRE_LIBS    := $(shell pkg-config --libs libpcre2-8 2>/dev/null || echo -lpcre2-8)
# librdkafka (Debian 12: librdkafka-dev 2.0.2) for the Kafka connectors
# (src/connector/conn_kafka*.c, docs/kafka.md)
RDKAFKA_CFLAGS := $(shell pkg-config --cflags rdkafka 2>/dev/null)
RDKAFKA_LIBS   := $(shell pkg-config --libs rdkafka 2>/dev/null || echo -lrdkafka)
# librocksdb is loaded at run time by the RocksDB backend (src/state/rocksdb_dl.h)
# libpq's header: the jdbc connector (src/connector/conn_pg.c) loads libpq
# with dlopen when a job configures a jdbc table (conn_pg_dl.h)
PQ_CFLAGS    := $(shell pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql)
# libsnappy, libzstd and zlib compress Parquet pages (src/format/parquet_codec.c)
LIBS    := $(PCRE_LIBS) $(RDKAFKA_LIBS) -lsnappy -lzstd -lz -ldl -lm -lpthread

LIB_SRC  := $(shell find src -name '*.c' ! -path 'src/cli/*' | sort)
CLI_SRC  := $(shell find src/cli -name '*.c' | sort)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# tests/tools/*.c are one program each, except the harness objects that
# programs share: the slt comparison (the runner, its unit test) and the
# parallelism probe (the runner, the property tests)
TOOL_LIB_SRC := tests/tools/slt_compare.c tests/tools/par_probe.c
TOOL_LIB_OBJ := $(TOOL_LIB_SRC:tests/tools/%.c=$(BUILD)/tests/obj/%.o)
TOOL_SRC := $(filter-out $(TOOL_LIB_SRC),$(sort $(wildcard tests/tools/*.c)))
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)

.PHONY: all deps demo test unit slt slt-parallel integration bench bench-par test-nexmark bench-nexmark fuzz asan tsan clean examples torture iceberg-torture crash-parallel \
	install kafka-torture test-pg test-kafka-group test-long

all: $(BUILD)/sluice $(BUILD)/libsluice.a $(TOOL_BIN) $(BUILD)/tools/kafka_mock $(BUILD)/tools/kafka_admin

deps:
	@sh scripts/install-deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(PCRE_CFLAGS) $(RDKAFKA_CFLAGS) $(PQ_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libsluice.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# libmicrohttpd serves `sluice run --http`: src/cli/http.c loads it with dlopen
# (only its header is needed here)
$(BUILD)/sluice: $(CLI_OBJ) $(BUILD)/libsluice.a
	$(CC) $(CFLAGS_ALL) -o $@ $(CLI_OBJ) $(BUILD)/libsluice.a $(LIBS)

# every unit test links the shared harness (tests/unit/harness.{c,h});
# -MMD writes each program's header dependencies next to the objects
UNIT_HARNESS := $(BUILD)/tests/obj/harness.o

$(UNIT_HARNESS): tests/unit/harness.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(TOOL_LIB_OBJ): $(BUILD)/tests/obj/%.o: tests/tools/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests/tools $(CFLAGS_ALL) -MMD -MP -c $< -o $@

# the shared objects a program links besides the harness (its prerequisites
# ending in .o other than the harness)
$(BUILD)/tests/%: tests/unit/%.c $(UNIT_HARNESS) $(BUILD)/libsluice.a
	@mkdir -p $(dir $@)obj
	$(CC) $(CPPFLAGS_ALL) -Itests/tools $(CFLAGS_ALL) $(RDKAFKA_CFLAGS) $(PQ_CFLAGS) -MMD -MP -MF $(BUILD)/tests/obj/$*.d -MT $@ \
		-o $@ $< $(filter %.o,$^) $(BUILD)/libsluice.a -lcmocka $(LIBS)

$(BUILD)/tools/%: tests/tools/%.c $(BUILD)/libsluice.a
	@mkdir -p $(dir $@) $(BUILD)/tests/obj
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -MMD -MP -MF $(BUILD)/tests/obj/tool_$*.d -MT $@ \
		-o $@ $< $(filter %.o,$^) $(BUILD)/libsluice.a $(LIBS)

$(BUILD)/tools/slt_runner: $(TOOL_LIB_OBJ)
$(BUILD)/tests/test_slt_compare: $(BUILD)/tests/obj/slt_compare.o
$(BUILD)/tests/test_property $(BUILD)/tests/test_property_stateful: $(BUILD)/tests/obj/par_probe.o

# librdkafka's mock cluster as a process: the Kafka tests' fast peer (tests/kafka/lib.sh)
$(BUILD)/tools/kafka_mock: tests/kafka/mockcluster.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(RDKAFKA_CFLAGS) -o $@ $< $(RDKAFKA_LIBS)

# topic creation on the real broker (tests/kafka/lib.sh, KAFKA_PEER=broker)
$(BUILD)/tools/kafka_admin: tests/kafka/admin.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(RDKAFKA_CFLAGS) -o $@ $< $(RDKAFKA_LIBS)

$(BUILD)/examples/%: examples/%.c $(BUILD)/libsluice.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libsluice.a $(LIBS)

demo: deps all
	@sh examples/demo.sh

test: deps all $(UNIT_BIN) $(BUILD)/examples/embed
	@SLT_PARALLELISM=$(SLT_PARALLELISM) sh tests/run_all.sh $(BUILD)

# the suites make test runs smaller, at the sizes make test ran them before
# its time was cut (docs/testing.md, "Test time"): tests/integration/crash.sh
# as it was, its jobs at parallelism 1 killed 5 times over their earlier
# rows (make torture, crash-parallel, iceberg-torture, test-pg and
# test-nexmark are the long versions)
test-long: deps all
	BUILD=$(BUILD) sh tests/integration/crash.sh long

# every slt file at parallelism SLT_PARALLELISM (3: more instances than this
# machine's 2 cores), compared as the contract says (docs/testing.md,
# "Parallelism"); also part of `make test`.  Until the engine honours
# 'parallelism.default' the runner says so and counts the files as skipped.
SLT_PARALLELISM ?= 3
slt-parallel: all
	@$(BUILD)/tools/slt_runner --parallelism $(SLT_PARALLELISM) tests/slt/*.slt

# the differential test against Apache Flink 1.20 (docs/testing.md): fetches Flink
# through Maven into ~/.m2 once, then runs tests/flink/cases and FLINK_RANDOM
# generated cases (seed FLINK_SEED) through both engines and compares the results
FLINK_SEED ?= 1
FLINK_RANDOM ?= 40
FLINK_RANDOM2 ?= 20
test-flink: deps all
	@sh scripts/flink-setup.sh $(BUILD)
	@python3 tests/flink/diff.py --build $(BUILD) --sluice $(BUILD)/sluice \
		--seed $(FLINK_SEED) --random $(FLINK_RANDOM) --random2 $(FLINK_RANDOM2)

# the long exactly-once proof: 30 SIGKILLs of a running 1 M-row job on the
# hashmap backend and 20 of a 400 000-row job on rocksdb (each real kill
# costs about half an uninterrupted run: tests/crash/crash.sh), then the
# fault points; then state beyond memory: RocksDB GROUP BY over
# BIGSTATE_KEYS keys in < 1 GB
BIGSTATE_KEYS ?= 50000000
torture: deps all
	bash tests/crash/crash.sh 1000000 30 hashmap
	bash tests/crash/crash.sh 400000 20 rocksdb
	bash tests/crash/faults.sh 1000000
	BUILD=$(BUILD) sh tests/crash/bigstate.sh $(BIGSTATE_KEYS) 1024 1
	$(MAKE) crash-parallel

# the exactly-once proof at parallelism 2 (docs/parallel.md §5): 20
# SIGKILLs per state backend, the committed output equal to an
# uninterrupted run at parallelism 1; then with each restart at 1, 2 or 3
# (restores rescaled from checkpoints) and savepoints along 3 -> 1 -> 3 ->
# 2 (§7) (about 7 minutes)
crash-parallel: deps all
	bash tests/crash/crash.sh 200000 20 hashmap 2
	bash tests/crash/crash.sh 200000 20 rocksdb 2
	bash tests/crash/crash.sh 200000 20 hashmap mix
	bash tests/crash/crash.sh 150000 20 rocksdb mix
	bash tests/crash/rescale.sh 300000

# the long Kafka-source crash test (tests/kafka/crash.sh): 400 000 orders in 16
# partitions of librdkafka's mock cluster, 20 SIGKILLs; then the exactly-once
# Kafka sink's (tests/kafka/eos_crash.sh) against a real broker it starts,
# 20 SIGKILLs (docs/kafka.md)
kafka-torture: deps all
	bash tests/kafka/crash.sh 400000 20 16
	bash tests/kafka/eos_crash.sh 400000 20 8

# several processes sharing a topic through the consumer group, one killed
# with kill -9, against a real broker it starts (tests/kafka/broker/group.sh,
# docs/kafka.md); make test runs it too, in tests/integration/kafka_broker.sh
test-kafka-group: deps all
	KAFKA_PEER=broker bash tests/kafka/broker/group.sh

# the long Iceberg crash test (tests/iceberg/crash.sh, docs/iceberg.md): 1 M orders
# into a partitioned table, 20 SIGKILLs and the named fault points
iceberg-torture: deps all
	bash tests/iceberg/crash.sh 1000000 20 append
	bash tests/iceberg/crash.sh 1000000 20 upsert

# PostgreSQL (docs/postgres.md): the jdbc sink's long crash test, 20 SIGKILLs
# over 300 000 rows and the fault points, and the postgres-cdc crash test
# with 25 SIGKILLs, on a private server (tests/pg/)
test-pg: deps all
	sh tests/pg/sink.sh
	sh tests/pg/bad.sh
	bash tests/pg/crash.sh 300000 20
	bash tests/pg/rescale.sh 40000
	sh tests/pg/cdc.sh 1
	sh tests/pg/cdc.sh 2
	sh tests/pg/cdc_crash.sh 25 300
	sh tests/pg/lookup.sh

# Nexmark (docs/nexmark.md): every query's final answer against sqlite3's
# batch answer over the same events, at parallelism 1 and 2
# (tests/nexmark/check.sh; `make test` runs it over 20 000 events), and
# q12's processing-time windows over 25 s of wall clock (tests/nexmark/q12.sh),
# and Flink 1.20 as a second oracle of the batch answers (tests/nexmark/flink.sh)
NEXMARK_CHECK_EVENTS ?= 200000
test-nexmark: deps all
	@sh tests/nexmark/check.sh $(NEXMARK_CHECK_EVENTS) "1 2"
	@sh tests/nexmark/q12.sh
	@sh tests/nexmark/flink.sh || [ $$? = 77 ]

# every Nexmark query into blackhole at parallelism 1 and 2, the generator's
# floor and the published figures: writes docs/nexmark.md's table
bench-nexmark: deps all
	@sh bench/nexmark/bench.sh $(BUILD)

bench: deps all
	@sh bench/run.sh $(BUILD)
	@sh bench/stateful.sh $(BUILD)
	@sh bench/ckpt.sh $(BUILD)
	@sh bench/parquet.sh $(BUILD)
	@sh bench/pg.sh $(BUILD)
	@sh bench/kafka.sh $(BUILD)
	@sh bench/pgcdc.sh $(BUILD)

# bench/run.sh's job 5 alone: the window benchmarks at 'parallelism.default'
# 1 and BENCH_PAR (2), wall and CPU time (docs/performance.md)
bench-par: deps all
	@BENCH_ONLY=par sh bench/run.sh $(BUILD)

FUZZ_SECONDS ?= 60
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
fuzz: deps
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		LIBS="$(LIBS) -fsanitize=address,undefined" test

# ThreadSanitizer (docs/testing.md): the unit programs that start threads and
# a checkpointing job per state backend (tests/tools/tsan.sh), built into
# build-tsan; a second build of the library and about a minute to run, so not
# part of `make test`
TSAN_UNIT := test_channel test_cpus test_sql_threads test_state test_ckpt_coord \
	test_conn_stdio test_conn_datagen test_prun test_pckpt test_metrics
tsan:
	$(MAKE) BUILD=build-tsan OPT="-O2 -g -fsanitize=thread" \
		LIBS="$(LIBS) -fsanitize=thread" build-tsan/sluice build-tsan/tools/gen_events \
		$(TSAN_UNIT:%=build-tsan/tests/%)
	@sh tests/tools/tsan.sh build-tsan $(TSAN_UNIT)

# `make install PREFIX=/opt/sluice`: the binary, the static library (every
# program linking it also needs $(LIBS), which the pkg-config file lists),
# the public headers, sluice.pc and the man page.  VERSION is sl_version()'s
# (src/api/engine.c); tests/integration/install.sh checks that they agree.
PREFIX  ?= /usr/local
VERSION := $(shell sed -n 's/^\t*return "\([0-9][0-9.]*\)";/\1/p' src/api/engine.c | head -1)
install: $(BUILD)/sluice $(BUILD)/libsluice.a
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/sluice $(DESTDIR)$(PREFIX)/bin/sluice
	install -m 644 $(BUILD)/libsluice.a $(DESTDIR)$(PREFIX)/lib/libsluice.a
	install -m 644 include/sluice.h include/sluice_udf.h $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@LIBS@|$(LIBS)|' \
		sluice.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/sluice.pc
	install -m 644 docs/man/sluice.1 $(DESTDIR)$(PREFIX)/share/man/man1/sluice.1

clean:
	rm -rf build build-asan build-fuzz build-tsan

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_HARNESS:.o=.d) $(TOOL_LIB_OBJ:.o=.d) \
	$(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/obj/tool_%.d) \
	$(UNIT_BIN:$(BUILD)/tests/%=$(BUILD)/tests/obj/%.d)
