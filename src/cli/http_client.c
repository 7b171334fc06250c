/*
 * http_client.c - `sluice explain --pending ADDR:PORT`: asks a running
 * job's HTTP endpoint (http.c) for /pending and prints the answer
 * (docs/observability.md, "Pending").
 *
 * A plain HTTP/1.0 GET over one TCP connection, the body being what the
 * server sends after the header until it closes the connection: the one
 * server it talks to is sluice's own (libmicrohttpd answers an HTTP/1.0
 * request with a close-delimited or Content-Length body and closes), so
 * the only thing read from the response is its status line and where the
 * header ends.  No redirects, no chunked bodies, no TLS.
 */
#include "http.h"

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int sl_http_get(const char *hostport, const char *path, sl_buf *body, char *msg, size_t cap)
{
	char host[256];
	snprintf(host, sizeof(host), "%s", hostport);
	char *colon = strrchr(host, ':');
	if (!colon || colon == host) {
		snprintf(msg, cap, "expected ADDRESS:PORT of a job's --http endpoint, got '%s'",
		         hostport);
		return -1;
	}
	*colon = 0;
	const char *port = colon + 1, *h = host;
	size_t hl = strlen(host);
	if (hl > 2 && host[0] == '[' && host[hl - 1] == ']') {
		host[hl - 1] = 0;
		h = host + 1;
	}
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
	int rc = getaddrinfo(h, port, &hints, &ai);
	if (rc) {
		snprintf(msg, cap, "%s: %s", hostport, gai_strerror(rc));
		return -1;
	}
	int fd = -1;
	for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen)) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		snprintf(msg, cap, "cannot connect to %s: is a job running with --http there?",
		         hostport);
		return -1;
	}
	struct timeval tv = {10, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	char req[512];
	int n = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", path, hostport);
	sl_buf resp;
	sl_buf_init(&resp);
	if (write(fd, req, (size_t)n) != n) {
		close(fd);
		snprintf(msg, cap, "cannot send to %s", hostport);
		return -1;
	}
	char buf[4096];
	ssize_t r;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		if (sl_buf_append(&resp, buf, (size_t)r))
			break;
	close(fd);
	sl_buf_putc(&resp, 0);
	const char *t = resp.p ? resp.p : "", *end = strstr(t, "\r\n\r\n");
	int code = 0;
	if (strncmp(t, "HTTP/1.", 7) || sscanf(t + 8, " %d", &code) != 1 || !end) {
		snprintf(msg, cap, "%s did not answer HTTP", hostport);
		sl_buf_deinit(&resp);
		return -1;
	}
	if (code != 200) {
		snprintf(msg, cap, "%s answered %s %d", hostport, path, code);
		sl_buf_deinit(&resp);
		return -1;
	}
	sl_buf_puts(body, end + 4);
	sl_buf_deinit(&resp);
	return 0;
}
