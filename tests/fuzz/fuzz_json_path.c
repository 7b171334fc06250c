/*
 * fuzz_json_path.c - libFuzzer target for the JSON reader and path
 * evaluator behind JSON_VALUE / JSON_QUERY / JSON_EXISTS / IS JSON
 * (src/expr/json_path.c).  The input's first line is a path spec, the rest
 * a document: the path is parsed, the document checked, the path
 * evaluated in its own mode and in the other one, and every matched span
 * written back in compact form (which must itself be a JSON document, but
 * for numbers beyond a double's range, written "Infinity" as Jackson does).
 * Any crash, sanitizer report or leak is a bug; "not JSON" and path syntax
 * errors are expected.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr/json_path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_compact(const char *doc, int64_t n, sl_jspan sp)
{
	char *buf = NULL;
	int64_t len = 0, cap = 0, b, e;
	/* compact output of a valid value must read back, except that a number
	 * beyond a double's range is written "Infinity", as Jackson writes it */
	if (sl_json_compact(doc + sp.start, sp.end - sp.start, &buf, &len, &cap) == 0 && len > 0 &&
	    !memmem(buf, (size_t)len, "Infinity", 8) && sl_json_check(buf, len, &b, &e) == SL_JV_NONE)
		abort();
	free(buf);
	(void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	const char *nl = memchr(s, '\n', size);
	int64_t pn = nl ? nl - s : (int64_t)size;
	const char *doc = nl ? nl + 1 : s + size;
	int64_t dn = (int64_t)size - (nl ? pn + 1 : pn);
	sl_arena a;
	sl_jpath path;
	sl_jeval ev;
	char msg[256];
	int64_t b, e;
	memset(&ev, 0, sizeof(ev));
	sl_arena_init(&a, 1024);
	if (sl_json_check(doc, dn, &b, &e) != SL_JV_NONE)
		check_compact(doc, dn, (sl_jspan){b, e});
	if (sl_jpath_parse(s, pn, &a, &path, msg, sizeof(msg)) == SL_JP_OK) {
		for (int m = 0; m < 2; m++) {
			int r = sl_jpath_eval(&path, doc, dn, &ev, msg, sizeof(msg));
			if (r == SL_JR_VALUE || r == SL_JR_LIST)
				for (int k = 0; k < ev.ncur; k++)
					check_compact(doc, dn, ev.cur[k]);
			path.strict = !path.strict;
		}
	}
	sl_jeval_free(&ev);
	sl_arena_deinit(&a);
	return 0;
}
