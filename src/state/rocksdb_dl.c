/*
 * rocksdb_dl.c - loads librocksdb at run time (see rocksdb_dl.h).
 */
#include <rocksdb/c.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "sluice.h"
#include "../base/err.h"

/* this file fills the table: it must see the real names, not the routing
 * macros */
#define SL_RDB_NO_MACROS
#include "rocksdb_dl.h"

struct sl_rdb_api sl__rdb;

/* The load runs once per process (pthread_once: engines opening RocksDB
 * backends in several threads at once must not fill sl__rdb together);
 * its outcome, success or the error, is kept for every later caller. */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static sl_err load_err;

static int load(sl_err *err)
{
	static const char *const names[] = {"librocksdb.so.7.8", "librocksdb.so.7", "librocksdb.so"};
	void *h = NULL;
	for (size_t i = 0; !h && i < sizeof(names) / sizeof(names[0]); i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return sl_err_set(err, SL_ENOTSUP, "state backend 'rocksdb': cannot load librocksdb "
		                  "(%s); install the Debian package librocksdb-dev", dlerror());
#define SL_RDB_LOAD(f)                                                                    \
	if (!(*(void **)&sl__rdb.f = dlsym(h, #f)))                                       \
		return sl_err_set(err, SL_ENOTSUP, "state backend 'rocksdb': librocksdb lacks %s", \
		                  #f);
	SL_RDB_FUNCS(SL_RDB_LOAD)
#undef SL_RDB_LOAD
	return 0;
}

static void load_once_fn(void)
{
	load(&load_err);
}

int sl__rdb_load(sl_err *err)
{
	pthread_once(&load_once, load_once_fn);
	if (load_err.code)
		return sl_err_set(err, load_err.code, "%s", load_err.msg);
	return 0;
}
