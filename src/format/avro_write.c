/*
 * avro_write.c - the Avro binary encoding of primitive values and the
 * object-container framing (avro.h; Avro 1.11 specification, "Binary
 * Encoding" and "Object Container Files").  Used by the Iceberg sink to
 * write manifests and manifest lists (src/connector/conn_iceberg_avro.c),
 * whose records it encodes field by field with these primitives.  Nothing
 * here knows a schema: the caller passes the schema's JSON text for the
 * header and encodes values in schema order.  Files are built in memory.
 */
#include "avro.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define AVRO_BLOCK_BYTES (64 * 1024) /* a block closes past this size */

int sl_avro_long(sl_buf *b, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	uint8_t tmp[10];
	int n = 0;
	while (z >= 0x80) {
		tmp[n++] = (uint8_t)(z | 0x80);
		z >>= 7;
	}
	tmp[n++] = (uint8_t)z;
	return sl_buf_append(b, tmp, (size_t)n);
}

int sl_avro_bool(sl_buf *b, int v)
{
	return sl_buf_putc(b, v ? 1 : 0);
}

int sl_avro_float(sl_buf *b, float v)
{
	uint32_t u;
	uint8_t t[4];
	memcpy(&u, &v, 4);
	for (int i = 0; i < 4; i++)
		t[i] = (uint8_t)(u >> (8 * i));
	return sl_buf_append(b, t, 4);
}

int sl_avro_double(sl_buf *b, double v)
{
	uint64_t u;
	uint8_t t[8];
	memcpy(&u, &v, 8);
	for (int i = 0; i < 8; i++)
		t[i] = (uint8_t)(u >> (8 * i));
	return sl_buf_append(b, t, 8);
}

int sl_avro_bytes(sl_buf *b, const void *p, size_t n)
{
	if (sl_avro_long(b, (int64_t)n))
		return -1;
	return sl_buf_append(b, p, n);
}

int sl_avro_string(sl_buf *b, const char *s)
{
	return sl_avro_bytes(b, s, strlen(s));
}

/* 16 random bytes for the sync marker (getrandom, else time and pid). */
static void make_sync(uint8_t sync[16])
{
	if (getrandom(sync, 16, GRND_NONBLOCK) == 16)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
	             ((uint64_t)getpid() << 32);
	for (int i = 0; i < 16; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		sync[i] = (uint8_t)(x >> 56);
	}
}

int sl_avro_file_begin(sl_avro_file *f, const char *schema, const char *const *meta,
                       int nmeta)
{
	int rc = 0;
	memset(f, 0, sizeof *f);
	sl_buf_init(&f->out);
	sl_buf_init(&f->block);
	make_sync(f->sync);
	rc |= sl_buf_append(&f->out, "Obj\x01", 4);
	/* the metadata map: one block of 2 + nmeta entries, then 0 */
	rc |= sl_avro_long(&f->out, 2 + nmeta);
	rc |= sl_avro_string(&f->out, "avro.schema");
	rc |= sl_avro_string(&f->out, schema);
	rc |= sl_avro_string(&f->out, "avro.codec");
	rc |= sl_avro_string(&f->out, "null");
	for (int i = 0; i < nmeta; i++) {
		rc |= sl_avro_string(&f->out, meta[2 * i]);
		rc |= sl_avro_string(&f->out, meta[2 * i + 1]);
	}
	rc |= sl_avro_long(&f->out, 0);
	rc |= sl_buf_append(&f->out, f->sync, 16);
	return rc ? -1 : 0;
}

/* Writes the open block: count, byte size, records, sync marker. */
static int flush_block(sl_avro_file *f)
{
	if (f->nrec == 0)
		return 0;
	int rc = sl_avro_long(&f->out, f->nrec) | sl_avro_long(&f->out, (int64_t)f->block.len) |
	         sl_buf_append(&f->out, f->block.p, f->block.len) |
	         sl_buf_append(&f->out, f->sync, 16);
	sl_buf_clear(&f->block);
	f->nrec = 0;
	return rc ? -1 : 0;
}

int sl_avro_file_record(sl_avro_file *f)
{
	f->nrec++;
	f->total++;
	return f->block.len >= AVRO_BLOCK_BYTES ? flush_block(f) : 0;
}

int sl_avro_file_end(sl_avro_file *f)
{
	return flush_block(f);
}

void sl_avro_file_deinit(sl_avro_file *f)
{
	sl_buf_deinit(&f->out);
	sl_buf_deinit(&f->block);
}
