/*
 * fuzz_avro.c - libFuzzer target: arbitrary bytes as an Avro object
 * container file, read with sluice's Avro reader (src/format/avro_read.c:
 * the header, the metadata map, every block's longs, bytes and doubles)
 * and as an Iceberg manifest list by the reader the iceberg sink uses on
 * its parent snapshot's list (src/connector/conn_iceberg_avro.c,
 * sl__ice_mlist_parse).  Seeds: manifest lists and manifests written by
 * the iceberg sink.
 *
 *   sh tests/fuzz/run.sh 60 avro
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "format/avro.h"
#include "connector/conn_iceberg_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_avro_in in;
	sl_avro_rd blk;
	const char *why;
	int64_t count;
	size_t n;
	if (sl_avro_open(&in, data, size, &why) == 0) {
		(void)sl_avro_meta(&in, "avro.schema", &n);
		while (sl_avro_next_block(&in, &blk, &count) == 1)
			for (int64_t k = 0; k < count && !blk.bad; k++) {
				(void)sl_avro_get_long(&blk);
				(void)sl_avro_get_bytes(&blk, &n);
				(void)sl_avro_get_double(&blk);
				(void)sl_avro_get_bool(&blk);
			}
	}
	ice_mref *refs = NULL;
	int nrefs = 0;
	sl_err err;
	sl_err_clear(&err);
	(void)sl__ice_mlist_parse(data, size, "fuzz", &refs, &nrefs, &err);
	sl__ice_mrefs_free(refs, nrefs);
	return 0;
}
