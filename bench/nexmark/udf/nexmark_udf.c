/*
 * nexmark_udf.c - the user-defined function of Flink's Nexmark suite, as a
 * sluice shared object (docs/udf.md): q14's count_char, which Flink's
 * nexmark jar provides as the Java class com.github.nexmark.flink.udf.
 * CountChar.  The entry symbol is that class name, so q14's statement runs
 * as published,
 *
 *     CREATE FUNCTION count_char AS 'com.github.nexmark.flink.udf.CountChar';
 *
 * once the library is on the list ADD JAR builds (Flink's runner puts the
 * nexmark jar on the class path; bench/nexmark/run_query.sh builds this
 * file into BUILD/bench/nexmark/libnexmark_udf.so and prepends its ADD JAR).
 *
 * count_char(s STRING, c STRING) -> BIGINT: how many characters of s equal
 * the first character of c (compared as Unicode code points, the UTF-8
 * sequence of c's first character matched at character boundaries of s);
 * 0 when s is NULL.  Flink's Java function throws when c is NULL or empty
 * (charAt(0)); so does this one: the call fails the job with a message.
 */
#include "sluice_udf.h"

#include <stdio.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* Bytes of the UTF-8 character starting with byte b (1 for a stray byte). */
static int utf8_len(unsigned char b)
{
	return b < 0xc0 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
}

static int count_char_eval(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                           const sluice_udf_col *args, sluice_udf_col *out)
{
	for (int k = 0; k < n; k++) {
		uint32_t i = rows[k];
		out->null[i] = 0;
		if (args[1].null[i] || args[1].v.str[i].len == 0) {
			snprintf(ctx->errmsg, sizeof ctx->errmsg, "count_char: the character argument "
			         "is %s (Flink's CountChar fails on it too)",
			         args[1].null[i] ? "NULL" : "empty");
			return -1;
		}
		if (args[0].null[i]) {
			out->v.i64[i] = 0;
			continue;
		}
		const unsigned char *c = (const unsigned char *)args[1].v.str[i].ptr;
		int64_t cl = utf8_len(c[0]);
		if (cl > args[1].v.str[i].len)
			cl = args[1].v.str[i].len;
		const unsigned char *s = (const unsigned char *)args[0].v.str[i].ptr;
		int64_t len = args[0].v.str[i].len;
		int64_t count = 0;
		if (cl == 1) {
			for (int64_t j = 0; j < len; j++)
				count += s[j] == c[0];
		} else {
			for (int64_t j = 0; j < len; j += utf8_len(s[j]))
				count += j + cl <= len && !memcmp(s + j, c, (size_t)cl);
		}
		out->v.i64[i] = count;
	}
	return 0;
}

static const char *const count_char_args[] = {"STRING", "STRING"};
static const sluice_udf count_char = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "count_char",
	.nargs = 2, .arg_types = count_char_args, .result_type = "BIGINT",
	.null_handling = SLUICE_UDF_CALLED_ON_NULL, .deterministic = 1, .eval = count_char_eval,
};

/* The entry under the Java class name q14 names (an ELF symbol may hold
 * dots; C spells it through an assembler name). */
EXPORT const sluice_udf *count_char_entry(void) __asm__("com.github.nexmark.flink.udf.CountChar");
EXPORT const sluice_udf *count_char_entry(void) { return &count_char; }
