/*
 * http.c - the job's HTTP endpoint (http.h; docs/observability.md):
 * `sluice run --http 127.0.0.1:8081`, or 'rest.port' / 'rest.address'
 * ('rest.bind-address') set in the script as in Flink.
 *
 * The server is libmicrohttpd (Debian's libmicrohttpd12), loaded with
 * dlopen when an endpoint is asked for (as the RocksDB backend and the
 * jdbc connector load theirs): linked, it brought ten shared libraries
 * (GnuTLS and its own) into every `sluice run`, 4.5 M instructions of
 * dynamic linking at each start (callgrind, docs/performance.md,
 * "Metrics").  It parses the requests, on one thread of its own (MHD_USE_INTERNAL_POLLING_THREAD),
 * with limits on connections (32), their memory (64 KiB) and idle time
 * (10 s), so a malformed or slow request costs one connection, never the
 * job.  Each GET takes a metrics snapshot (sl_metrics_get, the engine
 * call allowed from another thread: no lock on the job's per-row path)
 * and renders it:
 *
 *   /metrics   Prometheus text format (http_prom.c)
 *   /jobs...   Flink-shaped REST JSON (http_json.c)
 *   /pending   why no output yet, and every watermark (sl_metrics_pending;
 *              `sluice explain --pending ADDR:PORT` prints it)
 *   /          the page that draws the job live (http_page.c)
 *
 * Anything else is 404; a method other than GET or HEAD is 405.  The
 * server listens on a loopback address unless the caller allows another
 * (--http-allow-remote): the endpoint has no authentication and shows the
 * job's tables and figures.  Signals are blocked in the server's thread,
 * so SIGINT and SIGTERM still reach the job's stop (main.c).
 */
#include "http.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct sl_http {
	struct MHD_Daemon *d;
	sl_engine *e;
};

/* The functions of libmicrohttpd used here, typed by its header. */
static struct {
	void *lib;
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
} mhd;

/* Loads libmicrohttpd once (the main thread, before any server runs).
 * 0, or -1 with the reason in msg. */
static int mhd_load(char *msg, size_t cap)
{
	if (mhd.lib)
		return 0;
	void *lib = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(msg, cap, "--http needs libmicrohttpd (Debian package libmicrohttpd12): %s",
		         dlerror());
		return -1;
	}
#define LOAD(f)                                                                       \
	if (!(*(void **)&mhd.f = dlsym(lib, "MHD_" #f))) {                            \
		snprintf(msg, cap, "libmicrohttpd.so.12 lacks MHD_%s", #f);           \
		dlclose(lib);                                                         \
		return -1;                                                            \
	}
	LOAD(start_daemon)
	LOAD(stop_daemon)
	LOAD(get_daemon_info)
	LOAD(create_response_from_buffer)
	LOAD(add_response_header)
	LOAD(queue_response)
	LOAD(destroy_response)
#undef LOAD
	mhd.lib = lib;
	return 0;
}

static enum MHD_Result reply(struct MHD_Connection *c, int code, const char *type,
                             const char *body, size_t len)
{
	struct MHD_Response *r =
		mhd.create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	mhd.add_response_header(r, "Content-Type", type);
	mhd.add_response_header(r, "Cache-Control", "no-store");
	if (code == 405)
		mhd.add_response_header(r, "Allow", "GET, HEAD");
	enum MHD_Result rc = mhd.queue_response(c, (unsigned)code, r);
	mhd.destroy_response(r);
	return rc;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **req)
{
	sl_http *h = cls;
	static const char text[] = "text/plain; charset=utf-8";
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, 405, text, "only GET and HEAD\n", 18);
	if (!strcmp(url, "/"))
		return reply(c, 200, "text/html; charset=utf-8", sl_http_page, strlen(sl_http_page));
	int prom = !strcmp(url, "/metrics"), pending = !strcmp(url, "/pending");
	if (!prom && !pending && strncmp(url, "/jobs", 5))
		return reply(c, 404, text, "not found\n", 10);
	sl_metrics *m;
	if (sl_metrics_get(h->e, &m))
		return reply(c, 500, text, "out of memory\n", 14);
	if (pending) {
		char *t = sl_metrics_pending(m);
		sl_metrics_free(m);
		if (!t)
			return reply(c, 500, text, "out of memory\n", 14);
		enum MHD_Result rc = reply(c, 200, text, t, strlen(t));
		free(t);
		return rc;
	}
	sl_buf b;
	sl_buf_init(&b);
	int code = 200;
	if (prom)
		sl_http_prometheus(m, &b);
	else
		code = sl_http_json(m, url, &b);
	sl_metrics_free(m);
	enum MHD_Result rc = reply(c, code, prom ? "text/plain; version=0.0.4; charset=utf-8"
	                                         : "application/json", b.p ? b.p : "", b.len);
	sl_buf_deinit(&b);
	return rc;
}

sl_http *sl_http_start(sl_engine *e, const char *addr, int port, int allow_remote, int *bound,
                       char *msg, size_t cap)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
	char a[64];
	snprintf(a, sizeof(a), "%s", !strcmp(addr, "localhost") ? "127.0.0.1" : addr);
	size_t al = strlen(a);
	if (al > 1 && a[0] == '[' && a[al - 1] == ']') { /* [::1] */
		memmove(a, a + 1, al - 2);
		a[al - 2] = 0;
	}
	int loop, ip6 = 0;
	if (inet_pton(AF_INET, a, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		loop = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
	} else if (inet_pton(AF_INET6, a, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		loop = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
		ip6 = 1;
	} else {
		snprintf(msg, cap, "--http: '%s' is not an IP address (e.g. 127.0.0.1:8081)", addr);
		return NULL;
	}
	if (port < 0 || port > 65535) {
		snprintf(msg, cap, "--http: port %d out of range", port);
		return NULL;
	}
	if (!loop && !allow_remote) {
		snprintf(msg, cap, "--http: '%s' is not a loopback address: the endpoint has no "
		         "authentication; add --http-allow-remote to serve it there", addr);
		return NULL;
	}
	if (mhd_load(msg, cap))
		return NULL;
	sl_http *h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(msg, cap, "out of memory");
		return NULL;
	}
	h->e = e;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old); /* the server's thread inherits it */
	h->d = mhd.start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | (ip6 ? MHD_USE_IPv6 : 0),
	                        (uint16_t)port, NULL, NULL, answer, h,
	                        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	                        MHD_OPTION_CONNECTION_LIMIT, 32u,
	                        MHD_OPTION_CONNECTION_TIMEOUT, 10u,
	                        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)65536,
	                        MHD_OPTION_END);
	int errno_ = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->d) {
		snprintf(msg, cap, "--http: cannot listen on %s port %d (%s)", addr, port,
		         errno_ ? strerror(errno_) : "libmicrohttpd refused");
		free(h);
		return NULL;
	}
	const union MHD_DaemonInfo *di = mhd.get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	*bound = di ? di->port : port;
	return h;
}

void sl_http_stop(sl_http *h)
{
	if (!h)
		return;
	mhd.stop_daemon(h->d);
	free(h);
}
