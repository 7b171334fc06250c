/*
 * rocksdb_dl.c - loads librocksdb at run time (see rocksdb_dl.h).
 */
#include <rocksdb/c.h>

#include <dlfcn.h>
#include <stddef.h>

#include "sluice.h"
#include "../base/err.h"

/* this file fills the table: it must see the real names, not the routing
 * macros */
#define SL_RDB_NO_MACROS
#include "rocksdb_dl.h"

struct sl_rdb_api sl__rdb;

static int loaded;

int sl__rdb_load(sl_err *err)
{
	if (loaded)
		return 0;
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
	loaded = 1;
	return 0;
}
