/*
 * http.h - the job's HTTP endpoint, `sluice run --http ADDR:PORT`
 * (http.c: the server, libmicrohttpd; http_prom.c: /metrics; http_json.c:
 * /jobs...; http_page.c: the page at /; docs/observability.md).
 */
#ifndef SL_CLI_HTTP_H
#define SL_CLI_HTTP_H

#include <stddef.h>

#include "sluice.h"
#include "base/buf.h"

typedef struct sl_http sl_http;

/*
 * Starts serving e's job on addr (an IPv4 or IPv6 address; "localhost")
 * and port (0: any free port) from libmicrohttpd's own thread.  Refuses
 * an address that is not a loopback one unless allow_remote.  On success
 * returns the server and sets *bound to its port; on failure returns
 * NULL with the reason in msg (cap bytes).  e must stay open until
 * sl_http_stop.
 */
sl_http *sl_http_start(sl_engine *e, const char *addr, int port, int allow_remote, int *bound,
                       char *msg, size_t cap);

/* Stops serving (waits for the requests in progress); safe on NULL. */
void sl_http_stop(sl_http *h);

/*
 * The job id of m, as Flink's REST API spells one (32 hex digits): a hash
 * of the job's name and start time, stable while the job runs.
 */
void sl_http_job_id(const sl_metrics *m, char out[33]);

/* Appends m in the Prometheus text exposition format 0.0.4 (http_prom.c). */
int sl_http_prometheus(const sl_metrics *m, sl_buf *out);

/*
 * Appends the JSON answer of REST path `path` (below /jobs, as Flink's
 * REST API: "/jobs", "/jobs/overview", "/jobs/<id>", "/jobs/<id>/
 * checkpoints", "/jobs/<id>/vertices/<v>/watermarks"; http_json.c) for m.
 * Returns 200, or 404 with an {"errors": [...]} body.
 */
int sl_http_json(const sl_metrics *m, const char *path, sl_buf *out);

/*
 * GET path from the endpoint at hostport ("127.0.0.1:8081", "[::1]:8081")
 * over HTTP/1.0 (http_client.c); appends the body of a 200 answer to body.
 * Returns 0, or -1 with the reason in msg (cap bytes).
 */
int sl_http_get(const char *hostport, const char *path, sl_buf *body, char *msg, size_t cap);

/* The page served at / (http_page.c): a NUL-terminated HTML document. */
extern const char sl_http_page[];

/* Appends a JSON string literal of s (quoted and escaped) to out. */
void sl_http_json_str(sl_buf *out, const char *s);

#endif
