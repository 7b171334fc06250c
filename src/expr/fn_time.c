/*
 * fn_time.c - (being written) kernels for the time functions.
 */
#include "expr_int.h"
#include "base/timeutil.h"

#include <string.h>

/* Picks kernels for the time functions; SL_ENOTSUP for other functions. */
int sl__bind_time(sl_prog *p, sl_step *st, sl_err *err)
{
	return SL_ENOTSUP;
}

/* Offset of the session zone at a UTC instant (0 for UTC or an unknown zone). */
int64_t sl__tz_off(const sl_xctx *x, int64_t utc_us)
{
	const char *tz = x->ctx ? x->ctx->tz : NULL;
	int64_t off = 0;
	if (!tz || !*tz || !strcmp(tz, "UTC"))
		return 0;
	if (sl_tz_offset(tz, utc_us, &off))
		return 0;
	return off;
}
