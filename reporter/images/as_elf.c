/*
 * as_elf.c — AS-SAFE ELF note parsing (see as_elf.h).  Every offset is
 * checked against the block before use: the notes may be corrupt.
 */
#include "as_elf.h"

#include <elf.h>
#include <string.h>

static uint64_t
align4(uint64_t v)
{
	return (v + 3) & ~(uint64_t)3;
}

bool
as_elf_find_build_id(const uint8_t *notes, size_t size, size_t *at, size_t *len)
{
	size_t off = 0;
	while (size - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		memcpy(&nh, notes + off, sizeof nh);
		uint64_t name_at = off + sizeof nh;
		uint64_t desc_at = name_at + align4(nh.n_namesz);
		uint64_t next = desc_at + align4(nh.n_descsz);
		if (next > size || next <= off)
			return false;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp(notes + name_at, "GNU", 4) == 0) {
			*at = (size_t)desc_at;
			*len = nh.n_descsz;
			return true;
		}
		off = (size_t)next;
	}
	return false;
}
