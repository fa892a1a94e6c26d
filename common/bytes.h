/* Words read from a buffer of another process's memory at any offset, in
 * the machine's own byte order (the process runs on this machine): memcpy
 * because the offset need not be aligned. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t bytes_u16(const uint8_t *b, size_t off)
{
	uint16_t v;
	memcpy(&v, b + off, sizeof(v));
	return v;
}

static inline uint32_t bytes_u32(const uint8_t *b, size_t off)
{
	uint32_t v;
	memcpy(&v, b + off, sizeof(v));
	return v;
}

static inline uint64_t bytes_u64(const uint8_t *b, size_t off)
{
	uint64_t v;
	memcpy(&v, b + off, sizeof(v));
	return v;
}
