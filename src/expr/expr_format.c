/*
 * expr_format.c - names of functions and time units, and the readable form
 * of bound expressions used by EXPLAIN.
 *
 * The binder maps a generic call `name(args)` to an sl_fn with
 * sl_fn_from_name (aliases included: CHARACTER_LENGTH, LCASE, ...), and a
 * unit keyword to an sl_time_unit with sl_time_unit_from_name.
 * sl_expr_format prints a tree compactly: infix operators in parentheses
 * ("($1 + 5)"), calls as NAME(args), CAST(x AS T), CASE ... END, the JSON
 * functions with their clauses as SQL writes them.
 */
#include "expr_int.h"
#include "base/timeutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct name_map {
	const char *name;
	int v;
} name_map;

static const name_map FN_NAMES[] = {
	{"ARRAY", SL_FN_ARRAY}, {"MAP", SL_FN_MAP}, {"ITEM", SL_FN_ITEM},
	{"CARDINALITY", SL_FN_CARDINALITY}, {"ELEMENT", SL_FN_ELEMENT},
	{"ARRAY_CONTAINS", SL_FN_ARRAY_CONTAINS}, {"ARRAY_POSITION", SL_FN_ARRAY_POSITION},
	{"ARRAY_REMOVE", SL_FN_ARRAY_REMOVE}, {"ARRAY_DISTINCT", SL_FN_ARRAY_DISTINCT},
	{"ARRAY_REVERSE", SL_FN_ARRAY_REVERSE}, {"ARRAY_SLICE", SL_FN_ARRAY_SLICE},
	{"ARRAY_UNION", SL_FN_ARRAY_UNION}, {"ARRAY_EXCEPT", SL_FN_ARRAY_EXCEPT},
	{"ARRAY_INTERSECT", SL_FN_ARRAY_INTERSECT}, {"ARRAY_CONCAT", SL_FN_ARRAY_CONCAT},
	{"ARRAY_APPEND", SL_FN_ARRAY_APPEND}, {"ARRAY_PREPEND", SL_FN_ARRAY_PREPEND},
	{"ARRAY_MAX", SL_FN_ARRAY_MAX}, {"ARRAY_MIN", SL_FN_ARRAY_MIN},
	{"ARRAY_SORT", SL_FN_ARRAY_SORT}, {"ARRAY_JOIN", SL_FN_ARRAY_JOIN},
	{"MAP_KEYS", SL_FN_MAP_KEYS}, {"MAP_VALUES", SL_FN_MAP_VALUES},
	{"MAP_ENTRIES", SL_FN_MAP_ENTRIES}, {"MAP_FROM_ARRAYS", SL_FN_MAP_FROM_ARRAYS},
	{"MAP_UNION", SL_FN_MAP_UNION},
	{"MOD", SL_FN_MOD}, {"COALESCE", SL_FN_COALESCE}, {"NULLIF", SL_FN_NULLIF},
	{"CONCAT", SL_FN_CONCAT}, {"CONCAT_WS", SL_FN_CONCAT_WS},
	{"UPPER", SL_FN_UPPER}, {"UCASE", SL_FN_UPPER}, {"LOWER", SL_FN_LOWER},
	{"LCASE", SL_FN_LOWER}, {"SUBSTRING", SL_FN_SUBSTRING}, {"SUBSTR", SL_FN_SUBSTRING},
	{"CHAR_LENGTH", SL_FN_CHAR_LENGTH}, {"CHARACTER_LENGTH", SL_FN_CHAR_LENGTH},
	{"LENGTH", SL_FN_CHAR_LENGTH}, {"TRIM", SL_FN_TRIM_BOTH}, {"BTRIM", SL_FN_TRIM_BOTH},
	{"LTRIM", SL_FN_TRIM_LEADING}, {"RTRIM", SL_FN_TRIM_TRAILING},
	{"REPLACE", SL_FN_REPLACE}, {"POSITION", SL_FN_POSITION},
	{"REGEXP_EXTRACT", SL_FN_REGEXP_EXTRACT}, {"REGEXP", SL_FN_REGEXP},
	{"REGEXP_REPLACE", SL_FN_REGEXP_REPLACE}, {"SPLIT_INDEX", SL_FN_SPLIT_INDEX},
	{"LPAD", SL_FN_LPAD}, {"RPAD", SL_FN_RPAD}, {"MD5", SL_FN_MD5},
	{"ABS", SL_FN_ABS}, {"ROUND", SL_FN_ROUND}, {"FLOOR", SL_FN_FLOOR},
	{"CEIL", SL_FN_CEIL}, {"CEILING", SL_FN_CEIL}, {"POWER", SL_FN_POWER},
	{"POW", SL_FN_POWER}, {"SQRT", SL_FN_SQRT}, {"LN", SL_FN_LN}, {"LOG10", SL_FN_LOG10},
	{"EXP", SL_FN_EXP}, {"EXTRACT", SL_FN_EXTRACT}, {"DATE_TRUNC", SL_FN_DATE_TRUNC},
	{"DATE_FORMAT", SL_FN_DATE_FORMAT}, {"TO_TIMESTAMP", SL_FN_TO_TIMESTAMP},
	{"TO_TIMESTAMP_LTZ", SL_FN_TO_TIMESTAMP_LTZ}, {"TO_DATE", SL_FN_TO_DATE},
	{"UNIX_TIMESTAMP", SL_FN_UNIX_TIMESTAMP}, {"CURRENT_WATERMARK", SL_FN_CURRENT_WATERMARK},
	{"PROCTIME", SL_FN_PROCTIME}, {"CURRENT_TIMESTAMP", SL_FN_CURRENT_TIMESTAMP},
	{"NOW", SL_FN_CURRENT_TIMESTAMP}, {"LOCALTIMESTAMP", SL_FN_CURRENT_TIMESTAMP},
	{"TIMESTAMPADD", SL_FN_TIMESTAMPADD}, {"TIMESTAMPDIFF", SL_FN_TIMESTAMPDIFF},
	{"CONVERT_TZ", SL_FN_CONVERT_TZ}, {"FROM_UNIXTIME", SL_FN_FROM_UNIXTIME},
	{"CAST", SL_FN_CAST}, {"TRY_CAST", SL_FN_TRY_CAST}, {"SIMILAR", SL_FN_SIMILAR},
	{"LIKE", SL_FN_LIKE}, {"IN", SL_FN_IN}, {"CASE", SL_FN_CASE},
	{"AND", SL_FN_AND}, {"OR", SL_FN_OR}, {"NOT", SL_FN_NOT},
	/* issue 8: more built-in functions (IF, IFNULL and the JSON_* query and
	 * constructor syntaxes are bound in src/plan/bind_fn.c) */
	{"GREATEST", SL_FN_GREATEST}, {"LEAST", SL_FN_LEAST}, {"REPEAT", SL_FN_REPEAT},
	{"REVERSE", SL_FN_REVERSE}, {"INITCAP", SL_FN_INITCAP}, {"ASCII", SL_FN_ASCII},
	{"CHR", SL_FN_CHR}, {"LEFT", SL_FN_LEFT}, {"RIGHT", SL_FN_RIGHT}, {"INSTR", SL_FN_INSTR},
	{"LOCATE", SL_FN_LOCATE}, {"OVERLAY", SL_FN_OVERLAY}, {"PARSE_URL", SL_FN_PARSE_URL},
	{"HEX", SL_FN_HEX}, {"BIN", SL_FN_BIN}, {"TO_BASE64", SL_FN_TO_BASE64},
	{"FROM_BASE64", SL_FN_FROM_BASE64}, {"LOG", SL_FN_LOG}, {"LOG2", SL_FN_LOG2},
	{"IS_ALPHA", SL_FN_IS_ALPHA}, {"IS_DECIMAL", SL_FN_IS_DECIMAL}, {"IS_DIGIT", SL_FN_IS_DIGIT},
	{"SIN", SL_FN_SIN}, {"SINH", SL_FN_SINH}, {"COS", SL_FN_COS}, {"COSH", SL_FN_COSH},
	{"TAN", SL_FN_TAN}, {"TANH", SL_FN_TANH}, {"COT", SL_FN_COT}, {"ASIN", SL_FN_ASIN},
	{"ACOS", SL_FN_ACOS}, {"ATAN", SL_FN_ATAN}, {"ATAN2", SL_FN_ATAN2},
	{"DEGREES", SL_FN_DEGREES}, {"RADIANS", SL_FN_RADIANS}, {"SIGN", SL_FN_SIGN},
	{"PI", SL_FN_PI}, {"E", SL_FN_E}, {"TRUNCATE", SL_FN_TRUNCATE},
	{"SHA1", SL_FN_SHA1}, {"SHA224", SL_FN_SHA224}, {"SHA256", SL_FN_SHA256},
	{"SHA384", SL_FN_SHA384}, {"SHA512", SL_FN_SHA512}, {"SHA2", SL_FN_SHA2},
	{"RAND", SL_FN_RAND}, {"RAND_INTEGER", SL_FN_RAND_INTEGER}, {"UUID", SL_FN_UUID},
	{"JSON_STRING", SL_FN_JSON_STRING}, {"$JSON_AGG", SL_FN_JSON_AGG},
	{"SPLIT", SL_FN_SPLIT}, {"ROW", SL_FN_ROW},
	{"STR_TO_MAP", SL_FN_STR_TO_MAP}, {"ENCODE", SL_FN_ENCODE}, {"DECODE", SL_FN_DECODE},
};

int sl_fn_from_name(const char *name)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < sizeof(FN_NAMES) / sizeof(FN_NAMES[0]); i++)
		if (!strcasecmp(name, FN_NAMES[i].name))
			return FN_NAMES[i].v;
	return -1;
}

static const name_map TU_NAMES[] = {
	{"MICROSECOND", SL_TU_MICROSECOND}, {"MICROSECONDS", SL_TU_MICROSECOND},
	{"MILLISECOND", SL_TU_MILLISECOND}, {"MILLISECONDS", SL_TU_MILLISECOND},
	{"SECOND", SL_TU_SECOND}, {"SECONDS", SL_TU_SECOND}, {"MINUTE", SL_TU_MINUTE},
	{"MINUTES", SL_TU_MINUTE}, {"HOUR", SL_TU_HOUR}, {"HOURS", SL_TU_HOUR},
	{"DAY", SL_TU_DAY}, {"DAYS", SL_TU_DAY}, {"WEEK", SL_TU_WEEK}, {"WEEKS", SL_TU_WEEK},
	{"MONTH", SL_TU_MONTH}, {"MONTHS", SL_TU_MONTH}, {"QUARTER", SL_TU_QUARTER},
	{"YEAR", SL_TU_YEAR}, {"YEARS", SL_TU_YEAR}, {"DOW", SL_TU_DOW}, {"DAYOFWEEK", SL_TU_DOW},
	{"DOY", SL_TU_DOY}, {"DAYOFYEAR", SL_TU_DOY}, {"EPOCH", SL_TU_EPOCH},
	{"DECADE", SL_TU_DECADE}, {"CENTURY", SL_TU_CENTURY}, {"MILLENNIUM", SL_TU_MILLENNIUM},
	{"ISODOW", SL_TU_ISODOW}, {"ISOYEAR", SL_TU_ISOYEAR}, {"NANOSECOND", SL_TU_NANOSECOND},
	{"SQL_TSI_SECOND", SL_TU_SECOND}, {"SQL_TSI_MINUTE", SL_TU_MINUTE},
	{"SQL_TSI_HOUR", SL_TU_HOUR}, {"SQL_TSI_DAY", SL_TU_DAY}, {"SQL_TSI_WEEK", SL_TU_WEEK},
	{"SQL_TSI_MONTH", SL_TU_MONTH}, {"SQL_TSI_QUARTER", SL_TU_QUARTER},
	{"SQL_TSI_YEAR", SL_TU_YEAR},
};

int sl_time_unit_from_name(const char *name)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < sizeof(TU_NAMES) / sizeof(TU_NAMES[0]); i++)
		if (!strcasecmp(name, TU_NAMES[i].name))
			return TU_NAMES[i].v;
	return -1;
}

/* Canonical name of a time unit (the first spelling in TU_NAMES). */
static const char *unit_name(int64_t u)
{
	for (size_t i = 0; i < sizeof(TU_NAMES) / sizeof(TU_NAMES[0]); i++)
		if (TU_NAMES[i].v == u)
			return TU_NAMES[i].name;
	return "?";
}

/* ---- EXPLAIN form ------------------------------------------------------- */

typedef struct fmt_out {
	char *buf;
	size_t cap, len;
} fmt_out;

static void put(fmt_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(fmt_out *o, const char *fmt, ...)
{
	if (o->len >= o->cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
	if (o->len >= o->cap)
		o->len = o->cap - 1;
}

static void fmt_expr(fmt_out *o, const sl_expr *e, const char *const *names);

static void fmt_lit(fmt_out *o, const sl_expr *e)
{
	char tb[64];
	if (e->lit.is_null) {
		put(o, "NULL");
		return;
	}
	switch (sl_type_phys(e->type)) {
	case SL_PHYS_F64: put(o, "%.17g", e->lit.v.f64); break;
	case SL_PHYS_STR: put(o, "'%.*s'", (int)e->lit.v.str.len, e->lit.v.str.ptr); break;
	case SL_PHYS_I128: {
		sl_i128 v = e->lit.v.i128;
		int neg = v < 0, n = 0, sc = e->type.scale;
		unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
		char d[48];
		do {
			d[n++] = (char)('0' + (int)(u % 10));
			u /= 10;
		} while (u || n <= sc);
		put(o, "%s", neg ? "-" : "");
		while (n > 0) {
			put(o, "%c", d[--n]);
			if (n == sc && sc > 0)
				put(o, ".");
		}
		break;
	}
	default:
		if (e->type.id == SL_T_BOOLEAN)
			put(o, "%s", e->lit.v.i64 ? "TRUE" : "FALSE");
		else if (e->type.id == SL_T_DATE && sl_date_format(e->lit.v.i64, tb) > 0)
			put(o, "DATE '%s'", tb);
		else if (sl_type_is_timestamp(e->type) &&
		         sl_ts_format(e->lit.v.i64, e->type.precision, 0, 0, tb) > 0)
			put(o, "%s '%s'", e->type.id == SL_T_TIMESTAMP ? "TIMESTAMP" : "TIMESTAMP_LTZ", tb);
		else if (sl_type_is_integer(e->type))
			put(o, "%lld", (long long)e->lit.v.i64);
		else
			put(o, "%lld:%s", (long long)e->lit.v.i64, sl__type_str(e->type, tb, sizeof(tb)));
		break;
	}
}

static int is_infix(sl_fn fn)
{
	return (fn >= SL_FN_ADD && fn <= SL_FN_DIV) || (fn >= SL_FN_EQ && fn <= SL_FN_OR) ||
	       fn == SL_FN_IS_DISTINCT || fn == SL_FN_IS_NOT_DISTINCT || fn == SL_FN_LIKE ||
	       fn == SL_FN_SIMILAR;
}

static void fmt_args(fmt_out *o, const sl_expr *e, int from, const char *const *names)
{
	for (int i = from; i < e->nargs; i++) {
		if (i > from)
			put(o, ", ");
		fmt_expr(o, e->args[i], names);
	}
}

/* Calls with a time-unit literal argument. */
static void fmt_time_call(fmt_out *o, const sl_expr *e, const char *const *names)
{
	const char *nm = sl_fn_name(e->fn);
	int ui = e->fn == SL_FN_FLOOR_TIME || e->fn == SL_FN_CEIL_TIME ? 1 : 0;
	const char *un = e->args[ui]->kind == SL_EX_LIT ? unit_name(e->args[ui]->lit.v.i64) : "?";
	switch (e->fn) {
	case SL_FN_EXTRACT:
		put(o, "EXTRACT(%s FROM ", un);
		fmt_expr(o, e->args[1], names);
		put(o, ")");
		return;
	case SL_FN_FLOOR_TIME: case SL_FN_CEIL_TIME:
		put(o, "%s(", nm);
		fmt_expr(o, e->args[0], names);
		put(o, " TO %s)", un);
		return;
	default:
		put(o, "%s(%s, ", nm, un);
		fmt_args(o, e, 1, names);
		put(o, ")");
		return;
	}
}

/* The JSON functions in their SQL form: the clause codes (SL_JSON_*) of
 * their INT literal arguments written back as keywords. */
static const char *json_word(const sl_expr *code, int wrapper)
{
	static const char *const beh[] = {"NULL", "ERROR", "DEFAULT", "EMPTY ARRAY",
	                                  "EMPTY OBJECT", "TRUE", "FALSE", "UNKNOWN"};
	static const char *const wrap[] = {"WITHOUT", "WITH CONDITIONAL", "WITH UNCONDITIONAL"};
	int64_t v = code->kind == SL_EX_LIT ? code->lit.v.i64 : -1;
	if (wrapper)
		return v >= 0 && v < 3 ? wrap[v] : "?";
	return v >= 0 && v < 8 ? beh[v] : "?";
}

static void fmt_json_call(fmt_out *o, const sl_expr *e, const char *const *names)
{
	static const char *const kinds[] = {"VALUE", "SCALAR", "ARRAY", "OBJECT"};
	char tb[128];
	if (e->fn == SL_FN_IS_JSON) {
		int64_t k = e->args[1]->kind == SL_EX_LIT ? e->args[1]->lit.v.i64 : 0;
		put(o, "(");
		fmt_expr(o, e->args[0], names);
		put(o, " IS JSON %s)", k >= 0 && k < 4 ? kinds[k] : "?");
		return;
	}
	put(o, "%s(", sl_fn_name(e->fn));
	if (e->fn == SL_FN_JSON_OBJECT || e->fn == SL_FN_JSON_ARRAY) {
		int per = e->fn == SL_FN_JSON_OBJECT ? 3 : 2;
		for (int i = 1; i + per - 1 < e->nargs; i += per) {
			put(o, "%s%s", i > 1 ? ", " : "", per == 3 ? "KEY " : "");
			fmt_expr(o, e->args[i], names);
			if (per == 3) {
				put(o, " VALUE ");
				fmt_expr(o, e->args[i + 1], names);
			}
		}
		put(o, "%s%s ON NULL)", e->nargs > 1 ? " " : "", e->args[0]->lit.v.i64 ? "ABSENT" : "NULL");
		return;
	}
	fmt_expr(o, e->args[0], names);
	put(o, ", ");
	fmt_expr(o, e->args[1], names);
	if (e->fn == SL_FN_JSON_EXISTS) {
		put(o, " %s ON ERROR)", json_word(e->args[2], 0));
		return;
	}
	if (e->fn == SL_FN_JSON_QUERY) {
		put(o, " %s ARRAY WRAPPER %s ON EMPTY %s ON ERROR)", json_word(e->args[2], 1),
		    json_word(e->args[3], 0), json_word(e->args[4], 0));
		return;
	}
	put(o, " RETURNING %s", sl__type_str(e->type, tb, sizeof(tb)));
	for (int i = 2; i < 6; i += 2) {
		put(o, " %s", json_word(e->args[i], 0));
		if (e->args[i]->kind == SL_EX_LIT && e->args[i]->lit.v.i64 == SL_JSON_DEFAULT) {
			put(o, " ");
			fmt_expr(o, e->args[i + 1], names);
		}
		put(o, i == 2 ? " ON EMPTY" : " ON ERROR)");
	}
}

static void fmt_call(fmt_out *o, const sl_expr *e, const char *const *names)
{
	char tb[128];
	const char *nm = sl_fn_name(e->fn);
	if (is_infix(e->fn) && e->nargs == 2) {
		put(o, "(");
		fmt_expr(o, e->args[0], names);
		put(o, " %s ", nm);
		fmt_expr(o, e->args[1], names);
		put(o, ")");
		return;
	}
	switch (e->fn) {
	case SL_FN_NEG: put(o, "-"); fmt_expr(o, e->args[0], names); return;
	case SL_FN_NOT: put(o, "NOT "); fmt_expr(o, e->args[0], names); return;
	case SL_FN_IS_NULL: case SL_FN_IS_NOT_NULL: case SL_FN_IS_TRUE: case SL_FN_IS_FALSE:
	case SL_FN_IS_NOT_TRUE: case SL_FN_IS_NOT_FALSE:
		put(o, "(");
		fmt_expr(o, e->args[0], names);
		put(o, " %s)", nm);
		return;
	case SL_FN_CAST: case SL_FN_TRY_CAST:
		put(o, "%s(", nm);
		fmt_expr(o, e->args[0], names);
		put(o, " AS %s)", sl__type_str(e->type, tb, sizeof(tb)));
		return;
	case SL_FN_IN:
		put(o, "(");
		fmt_expr(o, e->args[0], names);
		put(o, " IN (");
		fmt_args(o, e, 1, names);
		put(o, "))");
		return;
	case SL_FN_CASE:
		put(o, "CASE");
		for (int i = 0; i + 1 < e->nargs; i += 2) {
			put(o, " WHEN ");
			fmt_expr(o, e->args[i], names);
			put(o, " THEN ");
			fmt_expr(o, e->args[i + 1], names);
		}
		if (e->nargs % 2) {
			put(o, " ELSE ");
			fmt_expr(o, e->args[e->nargs - 1], names);
		}
		put(o, " END");
		return;
	case SL_FN_FIELD: {
		const sl_row_type *rt = e->args[0]->type.row;
		fmt_expr(o, e->args[0], names);
		if (rt && e->field >= 0 && e->field < rt->nfields)
			put(o, ".%s", rt->fields[e->field].name);
		else
			put(o, ".$%d", e->field);
		return;
	}
	case SL_FN_EXTRACT: case SL_FN_FLOOR_TIME: case SL_FN_CEIL_TIME:
	case SL_FN_TIMESTAMPADD: case SL_FN_TIMESTAMPDIFF:
		fmt_time_call(o, e, names);
		return;
	case SL_FN_UDF:
		put(o, "%s(", e->udf_name ? e->udf_name : "UDF");
		fmt_args(o, e, 0, names);
		put(o, ")");
		return;
	case SL_FN_IS_JSON: case SL_FN_JSON_EXISTS: case SL_FN_JSON_VALUE: case SL_FN_JSON_QUERY:
	case SL_FN_JSON_OBJECT: case SL_FN_JSON_ARRAY:
		fmt_json_call(o, e, names);
		return;
	default:
		put(o, "%s(", nm);
		fmt_args(o, e, 0, names);
		put(o, ")");
		return;
	}
}

static void fmt_expr(fmt_out *o, const sl_expr *e, const char *const *names)
{
	switch (e->kind) {
	case SL_EX_COL:
		if (names && names[e->col])
			put(o, "%s", names[e->col]);
		else
			put(o, "$%d", e->col);
		break;
	case SL_EX_LIT:
		fmt_lit(o, e);
		break;
	case SL_EX_CALL:
		fmt_call(o, e, names);
		break;
	}
}

char *sl_expr_format(const sl_expr *e, const char *const *names, char *buf, size_t cap)
{
	fmt_out o = {buf, cap, 0};
	if (!cap)
		return buf;
	buf[0] = 0;
	if (e)
		fmt_expr(&o, e, names);
	return buf;
}
