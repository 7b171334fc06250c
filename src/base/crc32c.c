/*
 * crc32c.c - CRC-32C (see crc32c.h).
 *
 * The hardware path processes 8 bytes per instruction (about 20 GB/s on
 * this machine's class of CPU, so checksumming a checkpoint costs far less
 * than writing it); the table path is the portable fallback.
 */
#include "crc32c.h"

#include <string.h>

static uint32_t table[256];
static int have_table, have_hw = -1;

static void make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		table[i] = c;
	}
	have_table = 1;
}

static uint32_t crc_sw(uint32_t crc, const uint8_t *p, size_t n)
{
	if (!have_table)
		make_table();
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n)
{
	uint64_t c = crc;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
		p += 8;
		n -= 8;
	}
	uint32_t c32 = (uint32_t)c;
	while (n--)
		c32 = __builtin_ia32_crc32qi(c32, *p++);
	return c32;
}
#endif

uint32_t sl_crc32c(uint32_t crc, const void *p, size_t n)
{
	crc = ~crc;
#if defined(__x86_64__)
	if (have_hw < 0) {
		__builtin_cpu_init();
		have_hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	}
	if (have_hw)
		return ~crc_hw(crc, p, n);
#endif
	return ~crc_sw(crc, p, n);
}
