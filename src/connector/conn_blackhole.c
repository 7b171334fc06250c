/*
 * conn_blackhole.c - Flink's 'blackhole' sink: accepts every row, including
 * updates, and discards it.
 *
 * Sits at the end of a dataflow for benchmarks and for jobs whose effect is
 * elsewhere.  It only counts the live rows it was given (rows_written), so
 * its cost per batch is O(1).  No options besides 'connector'.
 */
#include "conn.h"
#include "sluice.h"

typedef struct blackhole_sink {
	sl_sink base; /* must be first */
} blackhole_sink;

static int bh_configure(sl_sink *k, const sl_conn_args *a, sl_err *err)
{
	(void)k, (void)a, (void)err;
	return 0;
}

static int bh_write(sl_sink *k, const sl_batch *b, sl_err *err)
{
	(void)err;
	k->rows_written += sl_batch_live(b);
	return 0;
}

static int bh_finish(sl_sink *k, sl_err *err)
{
	(void)k, (void)err;
	return 0;
}

static void bh_close(sl_sink *k)
{
	(void)k;
}

/* The 'blackhole' sink method table. */
const sl_sink_vtab sl_blackhole_sink_vtab = {
	.name = "blackhole",
	.size = sizeof(blackhole_sink),
	.accepts_updates = 1,
	.can_update = NULL,
	.guarantee = "exactly-once",
	.configure = bh_configure,
	.write = bh_write,
	.finish = bh_finish,
	.close = bh_close,
};
