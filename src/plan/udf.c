/*
 * udf.c - CREATE FUNCTION / DROP FUNCTION: user-defined scalar and
 * aggregate functions loaded from shared objects (include/sluice_udf.h is
 * their ABI, versions 1 and 2).
 *
 * ADD JAR 'lib.so' loads a library and puts it on the list CREATE FUNCTION
 * without USING JAR searches for the symbol (as Flink resolves a class on
 * the jars ADD JAR put on the class path); REMOVE JAR takes it off.
 *
 * Data flow:  CREATE FUNCTION name AS 'symbol' LANGUAGE C USING JAR 'lib.so'
 * --(sl_catalog_add_function)--> dlopen(lib.so), dlsym(symbol), call it,
 * check the registration (ABI version, kind, argument and result types,
 * callbacks) --> an sl_func_def in the catalog.  The binder (bind.c) turns
 * calls of a scalar function into SL_FN_UDF expressions whose kernel
 * (src/expr/fn_udf.c) calls the registration's eval per batch; an
 * aggregate function gets its aggregate vtab here (sl_agg_udf_vtab,
 * src/exec/agg_udf.c, in the catalog's arena) and the aggregate planners
 * (plan_agg.c, plan_over.c) use it like a built-in's.  A version-1
 * registration is scalar and its version-2 fields are never read.
 *
 * Every loading error names the file and the symbol (with dlerror's
 * text).  Libraries stay loaded until the catalog is freed, even after
 * DROP FUNCTION, because a running job may still call into them.
 * Function names match case-insensitively, as Flink's do.  Built-in
 * function names cannot be shadowed (Flink resolves built-ins first for
 * non-temporary-system functions; sluice refuses the ambiguity).
 */
#include "catalog.h"
#include "sluice.h"
#include "sluice_udf.h"
#include "../expr/expr.h"
#include "../exec/agg.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

sl_func_def *sl_catalog_function(const sl_catalog *c, const char *name)
{
	for (int i = 0; i < c->nfunctions; i++)
		if (!strcasecmp(c->functions[i]->name, name))
			return c->functions[i];
	return NULL;
}

/* A registration type name ("BIGINT", "TIMESTAMP(3)") as an sl_type; 0 or
 * -1 when it is not one the ABI supports. */
static int udf_type(const char *s, sl_type *t)
{
	static const struct { const char *name; sl_type_id id; } simple[] = {
		{"BOOLEAN", SL_T_BOOLEAN}, {"TINYINT", SL_T_TINYINT}, {"SMALLINT", SL_T_SMALLINT},
		{"INT", SL_T_INT}, {"INTEGER", SL_T_INT}, {"BIGINT", SL_T_BIGINT},
		{"FLOAT", SL_T_FLOAT}, {"DOUBLE", SL_T_DOUBLE}, {"DATE", SL_T_DATE},
	};
	int p = 0;
	char rest = 0;
	if (!s)
		return -1;
	for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
		if (!strcasecmp(s, simple[i].name)) {
			*t = sl_type_make(simple[i].id);
			return 0;
		}
	if (!strcasecmp(s, "STRING") || !strcasecmp(s, "VARCHAR")) {
		*t = sl_type_varchar(SL_STRING_LEN);
		return 0;
	}
	if (!strcasecmp(s, "BYTES") || !strcasecmp(s, "VARBINARY")) {
		*t = sl_type_make(SL_T_VARBINARY);
		t->length = SL_STRING_LEN;
		return 0;
	}
	if (sscanf(s, "TIMESTAMP_LTZ(%d)%c", &p, &rest) == 2 && rest == ')' && p >= 0 && p <= 9) {
		*t = sl_type_timestamp(SL_T_TIMESTAMP_LTZ, p);
		return 0;
	}
	if (sscanf(s, "TIMESTAMP(%d)%c", &p, &rest) == 2 && rest == ')' && p >= 0 && p <= 9) {
		*t = sl_type_timestamp(SL_T_TIMESTAMP, p);
		return 0;
	}
	return -1;
}

/* The version-2 checks of an aggregate registration: callbacks, acc_size
 * and a result type an accumulator can produce; builds d's vtab. */
static int check_aggregate(sl_catalog *c, sl_func_def *d, const sluice_udf *r,
                           const char *path, const char *sym, int line, int col, sl_err *err)
{
	const char *bad = !r->accumulate ? "accumulate must be set"
	                : !r->get_value ? "get_value must be set"
	                : (r->acc_size < 1 || r->acc_size > SLUICE_UDF_MAX_ACC)
	                ? "acc_size must be 1 to SLUICE_UDF_MAX_ACC (1024) bytes" : NULL;
	if (bad)
		return sl_err_set_at(err, SL_EPLAN, line, col, "line %d, column %d: aggregate "
		                     "function '%s': the registration returned by symbol '%s' in '%s' "
		                     "is invalid: %s", line, col, d->name, sym, path, bad);
	if (sl_type_is_string(d->result) || sl_type_is_binary(d->result))
		return sl_err_set_at(err, SL_EPLAN, line, col, "line %d, column %d: aggregate "
		                     "function '%s' (symbol '%s' in '%s'): result type '%s' is not "
		                     "supported for aggregate functions (an accumulator cannot hold "
		                     "the string; ABI version 2)", line, col, d->name, sym, path,
		                     r->result_type);
	if (!(d->agg_vt = sl_arena_calloc(&c->arena, sizeof(*d->agg_vt))))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	sl_agg_udf_vtab(d->agg_vt, r, d->name);
	return 0;
}

/* Checks the registration r of symbol sym in path and fills d's types. */
static int check_registration(sl_catalog *c, sl_func_def *d, const sluice_udf *r,
                              const char *path, const char *sym, int line, int col,
                              sl_err *err)
{
#define REG_ERR(...) sl_err_set_at(err, SL_EPLAN, line, col, __VA_ARGS__)
	if (r->abi_version != 1 && r->abi_version != SLUICE_UDF_ABI_VERSION)
		return REG_ERR("line %d, column %d: function '%s': symbol '%s' in '%s' returned a "
		               "registration of ABI version %u; this sluice supports versions 1 and "
		               "%d (include/sluice_udf.h): rebuild the library", line, col, d->name,
		               sym, path, (unsigned)r->abi_version, SLUICE_UDF_ABI_VERSION);
	/* a version-1 registration ends at eval: its kind is scalar */
	int kind = r->abi_version >= 2 ? r->kind : SLUICE_UDF_SCALAR;
	if (kind != SLUICE_UDF_SCALAR && kind != SLUICE_UDF_AGGREGATE)
		return REG_ERR("line %d, column %d: function '%s': the registration returned by "
		               "symbol '%s' in '%s' has kind %d (SLUICE_UDF_SCALAR or "
		               "SLUICE_UDF_AGGREGATE expected)", line, col, d->name, sym, path, kind);
	if (r->nargs < 0 || r->nargs > 16 || (r->nargs && !r->arg_types) ||
	    (kind == SLUICE_UDF_SCALAR && !r->eval) ||
	    (r->null_handling != SLUICE_UDF_NULL_IN_NULL_OUT &&
	     r->null_handling != SLUICE_UDF_CALLED_ON_NULL))
		return REG_ERR("line %d, column %d: function '%s': the registration returned by "
		               "symbol '%s' in '%s' is invalid (nargs must be 0-16 with arg_types, "
		               "eval must be set, null_handling one of the SLUICE_UDF_* values)",
		               line, col, d->name, sym, path);
	d->nargs = r->nargs;
	d->arg_types = sl_arena_calloc(&c->arena, sizeof(sl_type) * (size_t)(r->nargs + 1));
	if (!d->arg_types)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < r->nargs; i++)
		if (udf_type(r->arg_types[i], &d->arg_types[i]))
			return REG_ERR("line %d, column %d: function '%s' (symbol '%s' in '%s'): "
			               "argument %d has type '%s', which the C ABI does not support "
			               "(BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, STRING, "
			               "BYTES, DATE, TIMESTAMP(p), TIMESTAMP_LTZ(p))", line, col, d->name,
			               sym, path, i + 1, r->arg_types[i] ? r->arg_types[i] : "(null)");
	if (udf_type(r->result_type, &d->result))
		return REG_ERR("line %d, column %d: function '%s' (symbol '%s' in '%s'): result "
		               "type '%s' is not supported by the C ABI", line, col, d->name, sym,
		               path, r->result_type ? r->result_type : "(null)");
	if (kind == SLUICE_UDF_AGGREGATE && check_aggregate(c, d, r, path, sym, line, col, err))
		return err->code;
	d->udf = r;
	return 0;
#undef REG_ERR
}

/* dlopen + dlsym + call the entry; errors name the file and the symbol. */
static int load(sl_catalog *c, sl_func_def *d, int line, int col, sl_err *err)
{
	d->dl = dlopen(d->path, RTLD_NOW | RTLD_LOCAL);
	if (!d->dl)
		return sl_err_set_at(err, SL_EPLAN, line, col,
		                     "line %d, column %d: function '%s': cannot load library '%s': %s",
		                     line, col, d->name, d->path, dlerror());
	dlerror();
	void *sym = dlsym(d->dl, d->symbol);
	const char *e = dlerror();
	if (e || !sym)
		return sl_err_set_at(err, SL_EPLAN, line, col,
		                     "line %d, column %d: function '%s': symbol '%s' not found in "
		                     "library '%s': %s", line, col, d->name, d->symbol, d->path,
		                     e ? e : "NULL symbol");
	sluice_udf_entry entry;
	memcpy(&entry, &sym, sizeof entry);
	const sluice_udf *r = entry();
	if (!r)
		return sl_err_set_at(err, SL_EPLAN, line, col,
		                     "line %d, column %d: function '%s': symbol '%s' in library '%s' "
		                     "returned no registration (NULL)", line, col, d->name, d->symbol,
		                     d->path);
	return check_registration(c, d, r, d->path, d->symbol, line, col, err);
}

/* Names the binder resolves before user-defined functions besides the
 * scalar built-ins of sl_fn_from_name: aggregates, ranking, grouping and
 * window functions, and the calls bind.c, bind_fn.c and bind_time.c bind
 * themselves.  A function of such a name could never be called (or, for
 * an aggregate, would be ambiguous), so CREATE FUNCTION refuses it.  (A
 * name added to those binders and not here is caught by the tests only
 * if it is used as a function name; keep the lists together.) */
static int reserved_name(const char *name)
{
	static const char *const names[] = {
		"ROW_NUMBER", "RANK", "DENSE_RANK", "GROUPING", "GROUPING_ID", "GROUP_ID",
		"TUMBLE", "HOP", "SESSION", "CUMULATE", "TUMBLE_START", "TUMBLE_END",
		"TUMBLE_ROWTIME", "TUMBLE_PROCTIME", "HOP_START", "HOP_END", "HOP_ROWTIME",
		"HOP_PROCTIME", "SESSION_START", "SESSION_END", "SESSION_ROWTIME",
		"SESSION_PROCTIME", "PROCTIME", "CURRENT_WATERMARK",
		/* bind.c, bind_fn.c */
		"EXTRACT", "FLOOR", "CEIL", "TRIM", "TIMESTAMPADD", "TIMESTAMPDIFF", "IF", "IFNULL",
		"JSON_VALUE", "JSON_QUERY", "JSON_EXISTS", "JSON_OBJECT", "JSON_ARRAY", "CURRENT_DATABASE",
		"JSON_OBJECTAGG", "JSON_ARRAYAGG",
		/* bind_time.c */
		"CURRENT_DATE", "CURRENT_TIME", "CURRENT_ROW_TIMESTAMP", "LOCALTIME",
		"LOCALTIMESTAMP", "YEAR", "QUARTER", "MONTH", "WEEK", "DAYOFYEAR", "DAYOFMONTH",
		"DAYOFWEEK", "HOUR", "MINUTE", "SECOND", "OVERLAPS", "ROW", NULL,
	};
	if (sl_agg_find(name))
		return 1;
	for (int i = 0; names[i]; i++)
		if (!strcasecmp(name, names[i]))
			return 1;
	return 0;
}

/* The first library added with ADD JAR that exports sym, or NULL. */
static const char *jar_with(const sl_catalog *c, const char *sym)
{
	for (int i = 0; i < c->njars; i++) {
		dlerror();
		if (dlsym(c->jar_dls[i], sym) && !dlerror())
			return c->jars[i];
	}
	return NULL;
}

int sl_catalog_add_jar(sl_catalog *c, const char *path, int line, int col, sl_err *err)
{
	for (int i = 0; i < c->njars; i++)
		if (!strcmp(c->jars[i], path))
			return 0;
	size_t pl = strlen(path);
	if (pl > 4 && !strcasecmp(path + pl - 4, ".jar"))
		return sl_err_set_at(err, SL_ENOTSUP, line, col, "line %d, column %d: ADD JAR '%s': "
		                     "this looks like a Java jar: sluice loads C functions from a "
		                     "shared object (docs/udf.md)", line, col, path);
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl)
		return sl_err_set_at(err, SL_EPLAN, line, col, "line %d, column %d: ADD JAR: cannot "
		                     "load library '%s': %s", line, col, path, dlerror());
	void **nd = realloc(c->dls, sizeof(*nd) * (size_t)(c->ndls + 1));
	if (nd)
		c->dls = nd;
	const char **nj = nd ? realloc(c->jars, sizeof(*nj) * (size_t)(c->njars + 1)) : NULL;
	if (nj)
		c->jars = nj;
	void **njd = nj ? realloc(c->jar_dls, sizeof(*njd) * (size_t)(c->njars + 1)) : NULL;
	const char *copy = njd ? sl_arena_strdup(&c->arena, path) : NULL;
	if (njd)
		c->jar_dls = njd;
	if (!copy) {
		dlclose(dl);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	c->dls[c->ndls++] = dl; /* closed with the catalog */
	c->jars[c->njars] = copy;
	c->jar_dls[c->njars++] = dl;
	return 0;
}

int sl_catalog_remove_jar(sl_catalog *c, const char *path, int line, int col, sl_err *err)
{
	for (int i = 0; i < c->njars; i++)
		if (!strcmp(c->jars[i], path)) {
			/* the library stays loaded: functions created from it remain */
			memmove(c->jars + i, c->jars + i + 1, sizeof(*c->jars) * (size_t)(c->njars - i - 1));
			memmove(c->jar_dls + i, c->jar_dls + i + 1,
			        sizeof(*c->jar_dls) * (size_t)(c->njars - i - 1));
			c->njars--;
			return 0;
		}
	return sl_err_set_at(err, SL_EPLAN, line, col, "line %d, column %d: REMOVE JAR '%s': no "
	                     "such library was added (SHOW JARS lists them)", line, col, path);
}

int sl_catalog_add_function(sl_catalog *c, const sl_ast_create_function *f, int line, int col,
                            sl_err *err)
{
	const char *name = sl_ast_name_last(&f->name);
	if (sl_catalog_function(c, name)) {
		if (f->if_not_exists)
			return 0;
		return sl_err_set_at(err, SL_EPLAN, line, col, "line %d, column %d: function '%s' "
		                     "already exists", line, col, name);
	}
	if (sl_fn_from_name(name) >= 0 || reserved_name(name))
		return sl_err_set_at(err, SL_EPLAN, line, col, "line %d, column %d: '%s' is a "
		                     "built-in function: a user-defined function cannot take its name",
		                     line, col, name);
	if (f->language && strcmp(f->language, "C"))
		return sl_err_set_at(err, SL_ENOTSUP, f->lang_line, f->lang_col,
		                     "line %d, column %d: LANGUAGE %s is not supported: sluice loads "
		                     "functions written in C (LANGUAGE C) from a shared object "
		                     "(docs/udf.md)", f->lang_line, f->lang_col, f->language);
	const char *path = f->path ? f->path : jar_with(c, f->symbol);
	if (!path && !c->njars)
		return sl_err_set_at(err, SL_EPLAN, line, col, "line %d, column %d: function '%s': "
		                     "USING JAR '/path/lib.so' (or an earlier ADD JAR '/path/lib.so') "
		                     "is required (the shared object that exports '%s')", line, col,
		                     name, f->symbol);
	if (!path)
		return sl_err_set_at(err, SL_EPLAN, line, col, "line %d, column %d: function '%s': "
		                     "symbol '%s' not found in the %d librar%s added with ADD JAR "
		                     "(SHOW JARS lists them)", line, col, name, f->symbol, c->njars,
		                     c->njars == 1 ? "y" : "ies");
	size_t pl = strlen(path);
	if (!f->language && pl > 4 && !strcasecmp(path + pl - 4, ".jar"))
		return sl_err_set_at(err, SL_ENOTSUP, line, col, "line %d, column %d: function '%s': "
		                     "'%s' looks like a Java jar: Java (and Scala, Python) functions "
		                     "are not supported; sluice loads C functions from a shared object "
		                     "(LANGUAGE C, docs/udf.md)", line, col, name, path);
	if (f->nusing > 1)
		return sl_err_set_at(err, SL_ENOTSUP, line, col, "line %d, column %d: function '%s': "
		                     "only one USING JAR library is supported", line, col, name);
	sl_func_def *d = sl_arena_calloc(&c->arena, sizeof(*d));
	sl_func_def **nf = realloc(c->functions, sizeof(*nf) * (size_t)(c->nfunctions + 1));
	if (!d || !nf) {
		free(nf);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	c->functions = nf;
	d->name = sl_arena_strdup(&c->arena, name);
	d->symbol = sl_arena_strdup(&c->arena, f->symbol);
	d->path = sl_arena_strdup(&c->arena, path);
	d->temporary = f->temporary;
	int rc = load(c, d, line, col, err);
	void **nd = d->dl ? realloc(c->dls, sizeof(*nd) * (size_t)(c->ndls + 1)) : NULL;
	if (nd) {
		c->dls = nd;
		c->dls[c->ndls++] = d->dl; /* closed with the catalog */
	} else if (d->dl) {
		dlclose(d->dl);
		if (!rc)
			rc = sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	if (!rc)
		c->functions[c->nfunctions++] = d;
	return rc;
}

int sl_catalog_drop_function(sl_catalog *c, const sl_ast_drop_function *f, int line, int col,
                             sl_err *err)
{
	const char *name = sl_ast_name_last(&f->name);
	for (int i = 0; i < c->nfunctions; i++)
		if (!strcasecmp(c->functions[i]->name, name)) {
			/* the library stays loaded (a running job may call it): the
			 * catalog closes it when it is freed */
			memmove(c->functions + i, c->functions + i + 1,
			        sizeof(*c->functions) * (size_t)(c->nfunctions - i - 1));
			c->nfunctions--;
			return 0;
		}
	if (f->if_exists)
		return 0;
	return sl_err_set_at(err, SL_EPLAN, line, col, "line %d, column %d: function '%s' does "
	                     "not exist", line, col, name);
}

void sl_catalog_close_functions(sl_catalog *c)
{
	for (int i = 0; i < c->ndls; i++)
		dlclose(c->dls[i]);
	free(c->dls);
	c->dls = NULL;
	c->ndls = 0;
}
