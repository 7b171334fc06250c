/*
 * conn_pg_dl.c - loads libpq at run time (see conn_pg_dl.h).
 */
#include <libpq-fe.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "sluice.h"
#include "base/err.h"

/* this file fills the table: it must see the real names, not the routing
 * macros */
#define SL_PQ_NO_MACROS
#include "conn_pg_dl.h"

struct sl_pq_api sl__pq;

/* The load runs once per process (pthread_once: engines configuring jdbc
 * tables in several threads at once must not fill sl__pq together); its
 * outcome, success or the error, is kept for every later caller. */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static sl_err load_err;

static int load(sl_err *err)
{
	static const char *const names[] = {"libpq.so.5", "libpq.so"};
	void *h = NULL;
	for (size_t i = 0; !h && i < sizeof(names) / sizeof(names[0]); i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return sl_err_set(err, SL_ENOTSUP, "PostgreSQL: cannot load libpq (%s); install the "
		                  "Debian package libpq5 (or libpq-dev)", dlerror());
#define SL_PQ_LOAD(f)                                                                     \
	if (!(*(void **)&sl__pq.f = dlsym(h, #f)))                                        \
		return sl_err_set(err, SL_ENOTSUP, "PostgreSQL: libpq lacks %s", #f);
	SL_PQ_FUNCS(SL_PQ_LOAD)
#undef SL_PQ_LOAD
	return 0;
}

static void load_once_fn(void)
{
	load(&load_err);
}

int sl__pq_load(sl_err *err)
{
	pthread_once(&load_once, load_once_fn);
	if (load_err.code)
		return sl_err_set(err, load_err.code, "%s", load_err.msg);
	return 0;
}
