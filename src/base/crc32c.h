/*
 * crc32c.h - CRC-32C (Castagnoli), the checksum of checkpoint files.
 *
 * Uses the SSE4.2 crc32 instruction when the CPU has it (libgcc's CPU
 * model, filled before main), a constant table otherwise; both give the
 * same values (RFC 3720's polynomial 0x1EDC6F41, reflected, initial value
 * and final xor ~0).  No state: safe from any thread.
 */
#ifndef SL_CRC32C_H
#define SL_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Extends crc (0 to start) over n bytes at p. */
uint32_t sl_crc32c(uint32_t crc, const void *p, size_t n);

#endif
