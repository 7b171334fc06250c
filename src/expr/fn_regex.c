/*
 * fn_regex.c - (being written) kernels for the regex functions.
 */
#include "expr_int.h"
#include "base/timeutil.h"

/* Picks kernels for the regex functions; SL_ENOTSUP for other functions. */
int sl__bind_regex(sl_prog *p, sl_step *st, sl_err *err)
{
	return SL_ENOTSUP;
}
