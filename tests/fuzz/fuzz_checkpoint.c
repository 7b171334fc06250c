/*
 * fuzz_checkpoint.c - libFuzzer target for the checkpoint reader
 * (src/state/checkpoint.c): arbitrary bytes as a checkpoint directory's
 * _manifest and state file must be reported as damaged or read back,
 * never crash, hang or read out of bounds.
 *
 * Input: u16 little-endian manifest length L, then L manifest bytes, then
 * the state file's bytes.  A read that succeeds also feeds the state into
 * sl_state_restore of a memory backend (the state section's reader).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sluice.h"
#include "state/checkpoint.h"
#include "state/state.h"

static char dir[256];

static void put(const char *name, const uint8_t *p, size_t n)
{
	char path[400];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (n)
		fwrite(p, 1, n, f);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/sluice-fuzz-ckpt-%d", (int)getpid());
		sl_mkdirs(dir, NULL);
	}
	if (n < 2)
		return 0;
	size_t ml = (size_t)d[0] | (size_t)d[1] << 8;
	if (ml > n - 2)
		ml = n - 2;
	put("_manifest", d + 2, ml);
	put("state", d + 2 + ml, n - 2 - ml);
	sl_ckpt_meta meta;
	void *data = NULL;
	size_t len = 0;
	sl_err err;
	sl_err_clear(&err);
	if (sl_ckpt_read(dir, &meta, &data, &len, &err) == 0) {
		sl_state_backend *be;
		if (sl_state_backend_open("hashmap", &be, &err) == 0) {
			sl_snap_reader r;
			sl_snap_reader_init(&r, data, len);
			sl_state_restore(be, &r, &err);
			sl_state_backend_close(be);
		}
		sl_ckpt_data_free(data, len);
	}
	return 0;
}
