/*
 * status.c - the live status line of `sluice run` (status.h,
 * docs/observability.md, "The status line").
 *
 * While the job runs, a thread of its own takes a metrics snapshot
 * (sl_metrics_get, the one engine call allowed from another thread) every
 * 250 ms, so at most 4 redraws a second, and draws one line on standard
 * error:
 *
 *   RUNNING 0:12 | read orders 1.20M 98.1k/s 37% | wm 2026-08-01 09:00:05 lag
 *   3.2s now, 1.0s src | wrote out 1.20k | late 12 | ckpt #4 12ms 3.4MB
 *
 * (one line, cut to the terminal's width so that it never wraps; the
 * percentage, for bounded sources that know their end, is their progress:
 * the bytes of their files read so far (Parquet: by rows read of each
 * file's rows), or a bounded Kafka source's offsets towards its end
 * offsets; counted from the job's start after a restore too; stdin,
 * generators and unbounded sources show none).  The
 * job's watermark is the minimum over the sinks' input watermarks (what
 * the output has reached); its lag is shown behind the wall clock and
 * behind the most advanced source (the newest events read), so a replay
 * of old data still says which input holds it back.
 *
 * Drawing.  When standard output is not the same terminal, the line is
 * redrawn in place ("\r", the line, erase to its end).  When it is (a
 * bare SELECT prints rows there), the line keeps the terminal's last row
 * to itself: a scroll region over the rows above it (DECSTBM, as apt's
 * progress bar does), each redraw saving the cursor, drawing on the last
 * row and restoring the cursor, in one write(2) so that the rows the
 * sinks print in between are never cut.  sl_status_stop erases the line
 * and gives the terminal back its whole screen, so the final statistics
 * that main.c prints next start on a line of their own; a second signal
 * (_exit) does the same through sl_status_abandon.  The line is off when
 * standard error is not a terminal, TERM is "dumb", or --quiet.
 */
#include "status.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define REDRAW_MS 250 /* at most 4 redraws a second */

struct sl_status {
	sl_engine *e;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;          /* under mu */
	int region;        /* stdout is the terminal too: the last row is ours */
	int rows;          /* the terminal's rows when the region was set */
};

/* For sl_status_abandon: 0 no line, 1 a line, 2 a line in a scroll region. */
static atomic_int shown;

static void put(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(2, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* Appends to b (cap bytes) at *n. */
static void add(char *b, size_t cap, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add(char *b, size_t cap, size_t *n, const char *fmt, ...)
{
	if (*n >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(b + *n, cap - *n, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n = *n + (size_t)k < cap ? *n + (size_t)k : cap - 1;
}

/* 1234567 -> "1.23M" */
static void count_text(double v, char *out, size_t cap)
{
	if (v < 1000)
		snprintf(out, cap, "%.0f", v);
	else if (v < 1e6)
		snprintf(out, cap, "%.1fk", v / 1e3);
	else if (v < 1e9)
		snprintf(out, cap, "%.2fM", v / 1e6);
	else
		snprintf(out, cap, "%.2fG", v / 1e9);
}

static void bytes_text(double v, char *out, size_t cap)
{
	if (v < 1024)
		snprintf(out, cap, "%.0fB", v);
	else if (v < 1024 * 1024)
		snprintf(out, cap, "%.1fKB", v / 1024);
	else if (v < 1024.0 * 1024 * 1024)
		snprintf(out, cap, "%.1fMB", v / (1024 * 1024));
	else
		snprintf(out, cap, "%.2fGB", v / (1024.0 * 1024 * 1024));
}

/* A duration in microseconds, short: 850ms, 3.2s, 4m05s, 2h10m, 3.5d. */
static void dur_text(int64_t us, char *out, size_t cap)
{
	const char *sign = us < 0 ? "-" : "";
	uint64_t u = us < 0 ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
	double s = (double)u / 1e6;
	if (s < 1)
		snprintf(out, cap, "%s%.0fms", sign, s * 1e3);
	else if (s < 60)
		snprintf(out, cap, "%s%.1fs", sign, s);
	else if (s < 3600)
		snprintf(out, cap, "%s%dm%02ds", sign, (int)(s / 60), (int)s % 60);
	else if (s < 86400)
		snprintf(out, cap, "%s%dh%02dm", sign, (int)(s / 3600), (int)(s / 60) % 60);
	else
		snprintf(out, cap, "%s%.1fd", sign, s / 86400);
}

static void wm_text(int64_t us, char *out, size_t cap)
{
	time_t t = (time_t)(us / 1000000 - (us % 1000000 < 0));
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, cap, "%Y-%m-%d %H:%M:%S", &tm);
}

static const char *status_name(int st)
{
	static const char *const n[] = {"NO JOB", "CREATED", "RUNNING", "FINISHED", "FAILED",
	                                "CANCELED"};
	return st >= 0 && st <= SL_JOB_CANCELED ? n[st] : "?";
}

/* Sums the instances of operator node of role into *rows and *rate. */
static int node_sum(const sl_metrics *m, int i, int64_t *rows, double *rate)
{
	int node = m->ops[i].node, k = i;
	*rows = 0;
	*rate = 0;
	for (; k < m->nops && m->ops[k].node == node; k++) {
		int src = m->ops[k].role == SL_ROLE_SOURCE;
		*rows += src ? m->ops[k].rows_out : m->ops[k].rows_in;
		*rate += src ? m->ops[k].rows_out_per_s : m->ops[k].rows_in_per_s;
	}
	return k; /* the next operator's first instance */
}

size_t sl_status_format(const sl_metrics *m, char *buf, size_t cap, int width)
{
	size_t n = 0;
	char a[48], b[48], c[48];
	int64_t el = m->now_us - m->start_us;
	add(buf, cap, &n, "%s %d:%02d", status_name(m->status), (int)(el / 60000000),
	    (int)(el / 1000000 % 60));
	/* sources: rows read and rate; the job's watermark and the newest source's */
	const char *sep = " | read";
	int64_t job_wm = SL_WM_END, src_wm = SL_WM_NONE, late = 0;
	int sinks = 0;
	for (int i = 0; i < m->nops;) {
		const sl_metric_op *o = &m->ops[i];
		late += o->late_dropped + o->late_diverted;
		if (o->role == SL_ROLE_SOURCE && o->out_wm != SL_WM_END && o->out_wm > src_wm)
			src_wm = o->out_wm;
		if (o->role == SL_ROLE_SINK) {
			sinks++;
			if (o->in_wm < job_wm)
				job_wm = o->in_wm;
		}
		if (o->role != SL_ROLE_SOURCE || !o->table[0]) {
			i++;
			continue;
		}
		int64_t rows, done = 0, total = 0;
		double rate;
		int next = node_sum(m, i, &rows, &rate);
		for (int k = i; k < next; k++) {
			if (k > i)
				late += m->ops[k].late_dropped + m->ops[k].late_diverted;
			if (k > i && m->ops[k].out_wm != SL_WM_END && m->ops[k].out_wm > src_wm)
				src_wm = m->ops[k].out_wm;
			done += m->ops[k].bytes_read;
			total += m->ops[k].bytes_total;
		}
		count_text((double)rows, a, sizeof(a));
		count_text(rate, b, sizeof(b));
		add(buf, cap, &n, "%s %s %s %s/s", sep, o->table, a, b);
		if (total > 0) /* a bounded source that knows its end: how far through it */
			add(buf, cap, &n, " %d%%", (int)(done * 100 / total));
		sep = ",";
		i = next;
	}
	if (!sinks)
		job_wm = SL_WM_NONE;
	if (job_wm == SL_WM_NONE) {
		add(buf, cap, &n, " | wm -");
	} else if (job_wm == SL_WM_END) {
		add(buf, cap, &n, " | wm end");
	} else {
		wm_text(job_wm, a, sizeof(a));
		dur_text(m->now_us - job_wm, b, sizeof(b));
		add(buf, cap, &n, " | wm %s lag %s now", a, b);
		if (src_wm != SL_WM_NONE && src_wm > job_wm) {
			dur_text(src_wm - job_wm, c, sizeof(c));
			add(buf, cap, &n, ", %s src", c);
		}
	}
	sep = " | wrote";
	for (int i = 0; i < m->nops;) {
		if (m->ops[i].role != SL_ROLE_SINK) {
			i++;
			continue;
		}
		int64_t rows;
		double rate;
		int next = node_sum(m, i, &rows, &rate);
		count_text((double)rows, a, sizeof(a));
		add(buf, cap, &n, "%s %s %s", sep, m->ops[i].table, a);
		sep = ",";
		i = next;
	}
	if (late) {
		count_text((double)late, a, sizeof(a));
		add(buf, cap, &n, " | late %s", a);
	}
	if (m->ckpt_last_id) {
		dur_text(m->ckpt_last_duration_us, a, sizeof(a));
		bytes_text((double)m->ckpt_last_size, b, sizeof(b));
		add(buf, cap, &n, " | ckpt #%lld %s %s", (long long)m->ckpt_last_id, a, b);
	} else if (m->checkpointing) {
		add(buf, cap, &n, " | ckpt -");
	}
	if (m->ckpt_failed)
		add(buf, cap, &n, " (%lld failed)", (long long)m->ckpt_failed);
	if (width > 0 && n > (size_t)width)
		n = (size_t)width;
	buf[n] = 0;
	return n;
}

static int term_size(int *rows)
{
	struct winsize ws;
	if (ioctl(2, TIOCGWINSZ, &ws) || ws.ws_col == 0) {
		*rows = 0;
		return 0;
	}
	*rows = ws.ws_row;
	return ws.ws_col;
}

static void draw(sl_status *s)
{
	sl_metrics *m;
	if (sl_metrics_get(s->e, &m))
		return;
	int rows, cols = term_size(&rows);
	char line[1024], out[1200];
	sl_status_format(m, line, sizeof(line), cols > 1 ? cols - 1 : 0);
	sl_metrics_free(m);
	int n;
	if (s->region && rows > 2 && rows != s->rows) { /* resized: the region follows */
		n = snprintf(out, sizeof(out), "\0337\033[%d;1H\033[2K\033[1;%dr\0338", s->rows,
		             rows - 1);
		put(out, (size_t)n);
		s->rows = rows;
	}
	if (s->region) /* save the cursor, draw on the last row, restore it */
		n = snprintf(out, sizeof(out), "\0337\033[%d;1H\033[2K%s\0338", s->rows, line);
	else
		n = snprintf(out, sizeof(out), "\r%s\033[K", line);
	put(out, n < (int)sizeof(out) ? (size_t)n : sizeof(out) - 1);
}

static void *status_main(void *arg)
{
	sl_status *s = arg;
	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		pthread_mutex_unlock(&s->mu);
		draw(s);
		pthread_mutex_lock(&s->mu);
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += REDRAW_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		while (!s->stop && pthread_cond_timedwait(&s->cv, &s->mu, &ts) == 0)
			;
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

sl_status *sl_status_start(sl_engine *e)
{
	const char *term = getenv("TERM");
	if (!isatty(2) || (term && !strcmp(term, "dumb")))
		return NULL;
	sl_status *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->e = e;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	int rows;
	if (isatty(1) && term_size(&rows) && rows > 2) {
		/* a row for the line: a new line (scrolling when the cursor is
		 * on the last row), the region above the last row (which homes
		 * the cursor: saved and restored around it), and the cursor back
		 * up on the line where output was to go (apt does the same) */
		char esc[64];
		int n = snprintf(esc, sizeof(esc), "\n\0337\033[1;%dr\0338\033[1A", rows - 1);
		fflush(stdout);
		put(esc, (size_t)n);
		s->region = 1;
		s->rows = rows;
	}
	atomic_store(&shown, s->region ? 2 : 1);
	/* the thread must not take the signals meant for the job's stop */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&s->th, NULL, status_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		s->th = 0;
		sl_status_stop(s);
		return NULL;
	}
	return s;
}

void sl_status_stop(sl_status *s)
{
	if (!s)
		return;
	if (s->th) {
		pthread_mutex_lock(&s->mu);
		s->stop = 1;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->th, NULL);
	}
	fflush(stdout);
	if (s->region) {
		char esc[64];
		/* erase the line, the whole screen scrolls again, the cursor goes
		 * back where the output stopped */
		int n = snprintf(esc, sizeof(esc), "\0337\033[%d;1H\033[2K\033[r\0338", s->rows);
		put(esc, (size_t)n);
	} else {
		put("\r\033[K", 4);
	}
	atomic_store(&shown, 0);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}

void sl_status_abandon(void)
{
	static const char region[] = "\0337\033[r\0338\n", line[] = "\r\033[K";
	int sh = atomic_load(&shown);
	ssize_t w = sh == 2 ? write(2, region, sizeof(region) - 1)
	                    : sh == 1 ? write(2, line, sizeof(line) - 1) : 0;
	(void)w;
}
