/*
 * embed.c - sluice embedded in a C program through include/sluice.h.
 *
 * Declares a push table and a push sink, starts the tutorial's 10-second
 * tumbling SUM, pushes four events, ends the input and prints the results
 * polled from the engine.  Build: `make build/examples/embed`; run:
 * ./build/examples/embed
 */
#include <stdio.h>
#include <string.h>

#include "sluice.h"

static void print_row(void *ctx, const char *table, sl_rowkind kind, const char *json, size_t len)
{
	static const char *const kinds[] = {"+I", "-U", "+U", "-D"};
	printf("%s %s %.*s\n", table, kinds[kind], (int)len, json);
}

int main(void)
{
	sl_engine *e;
	if (sl_engine_open(&e))
		return 1;
	const char *sql =
		"CREATE TABLE events (user_id STRING, amount INT, event_time TIMESTAMP(3),"
		"  WATERMARK FOR event_time AS event_time) WITH ('connector' = 'push');"
		"CREATE TABLE totals (window_start TIMESTAMP(3), total INT) WITH ('connector' = 'push');"
		"INSERT INTO totals SELECT window_start, SUM(amount) FROM TABLE(TUMBLE(TABLE events,"
		"  DESCRIPTOR(event_time), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;";
	const char *rows[] = {
		"{\"user_id\":\"a\",\"amount\":10,\"event_time\":\"2026-08-01 09:00:05\"}",
		"{\"user_id\":\"b\",\"amount\":20,\"event_time\":\"2026-08-01 09:00:12\"}",
		"{\"user_id\":\"a\",\"amount\":5,\"event_time\":\"2026-08-01 09:00:25\"}",
		"{\"user_id\":\"c\",\"amount\":8,\"event_time\":\"2026-08-01 09:00:31\"}",
	};
	int rc = sl_exec(e, sql);
	for (int i = 0; !rc && i < 4; i++) {
		rc = sl_push_json(e, "events", rows[i], strlen(rows[i]));
		sl_poll(e, print_row, NULL); /* windows emit as the watermark passes them */
	}
	if (!rc)
		rc = sl_push_end(e, "events");
	sl_poll(e, print_row, NULL);
	if (rc)
		fprintf(stderr, "error: %s\n", sl_errmsg(e));
	sl_engine_close(e);
	return rc ? 1 : 0;
}
