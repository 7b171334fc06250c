/*
 * plan_unsup.c - Flink built-in functions that sluice does not have.
 *
 * The binder (bind.c) looks a call's name up among sluice's own functions
 * first (its special forms, bind_time.c, bind_fn.c, user-defined functions,
 * then sl_fn_from_name); only a name none of them knows comes here, so
 * implementing one of these functions needs no change to this list (a
 * stale entry is harmless).
 * A name on the list is refused as "function X is not supported" (a Flink
 * function sluice lacks) rather than "unknown function" (a typo or a
 * user-defined function that was never created).
 *
 * The list follows Flink 1.20's built-in function reference
 * (docs/dev/table/functions/systemFunctions.md, docs/data/sql_functions.yml).
 */
#include "plan_int.h"

#include <stdlib.h>
#include <string.h>

/* Sorted (strcmp) for bsearch. */
static const char *const flink_fns[] = {
	"ACOS", "ARRAY_AGG", "ARRAY_APPEND", "ARRAY_CONCAT", "ARRAY_CONTAINS",
	"ARRAY_DISTINCT", "ARRAY_EXCEPT", "ARRAY_INTERSECT", "ARRAY_JOIN", "ARRAY_MAX",
	"ARRAY_MIN", "ARRAY_POSITION", "ARRAY_PREPEND", "ARRAY_REMOVE", "ARRAY_REVERSE",
	"ARRAY_SLICE", "ARRAY_SORT", "ARRAY_UNION", "ASCII", "ASIN", "ATAN", "ATAN2", "BIN",
	"BTRIM", "CHARACTER_LENGTH", "CHR", "COLLECT", "CONVERT_TZ", "COS", "COSH",
	"COT", "CUME_DIST", "CURRENT_ROW_TIMESTAMP", "DATEDIFF",
	"DAYOFMONTH", "DAYOFWEEK", "DAYOFYEAR", "DECODE", "DEGREES", "DENSE_RANK", "E",
	"ELT", "ENCODE", "FROM_BASE64", "FROM_UNIXTIME", "GREATEST", "GROUPING",
	"GROUPING_ID", "GROUP_ID", "HEX", "HOUR", "IF", "IFNULL", "INITCAP", "INSTR",
	"IS_ALPHA", "IS_DECIMAL", "IS_DIGIT", "JSON_ARRAY", "JSON_EXISTS",
	"JSON_OBJECT", "JSON_QUERY", "JSON_QUOTE", "JSON_STRING",
	"JSON_UNQUOTE", "JSON_VALUE", "LAG", "LAST_DAY", "LEAD", "LEAST", "LEFT",
	"LOCATE", "LOG", "LOG2", "LTRIM", "MAP_ENTRIES", "MAP_FROM_ARRAYS", "MAP_KEYS",
	"MAP_UNION", "MAP_VALUES", "MINUTE", "MONTH", "NOW", "NTILE", "OVERLAY",
	"PARSE_URL", "PERCENTILE", "PERCENT_RANK", "PI", "PRINTF", "QUARTER", "RADIANS",
	"RAND", "RAND_INTEGER", "RANK", "REGEXP_COUNT", "REGEXP_EXTRACT_ALL", "REGEXP_INSTR",
	"REGEXP_SUBSTR", "REPEAT", "REVERSE", "RIGHT", "RTRIM", "SECOND", "SHA1", "SHA2",
	"SHA224", "SHA256", "SHA384", "SHA512", "SIGN", "SIN", "SINH", "SOURCE_WATERMARK",
	"STR_TO_MAP", "TAN", "TANH", "TO_BASE64",
	"TRANSLATE", "TRUNCATE", "TYPEOF", "UNHEX", "URL_DECODE", "URL_ENCODE", "UUID",
	"WEEK", "YEAR",
};

static int cmp_name(const void *k, const void *e)
{
	return strcmp((const char *)k, *(const char *const *)e);
}

const char *sl__flink_missing_fn(const char *fname)
{
	if (!strcmp(fname, "MULTISET"))
		return "the value constructor %s[...] is not supported (no MULTISET type)";
	if (bsearch(fname, flink_fns, sizeof(flink_fns) / sizeof(flink_fns[0]),
	            sizeof(flink_fns[0]), cmp_name))
		return "function '%s' is not supported (docs/sql.md lists the missing built-in "
		       "functions)";
	return NULL;
}
