/*
 * as_elf.h — AS-SAFE ELF helpers shared by the image scan and the symbol
 * tables.
 */
#ifndef PM_REPORTER_AS_ELF_H
#define PM_REPORTER_AS_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Find the NT_GNU_BUILD_ID note in a block of notes; its bytes are
 * notes[*at .. *at + *len).  False when the block has none or is malformed. */
bool as_elf_find_build_id(const uint8_t *notes, size_t size, size_t *at, size_t *len);

#endif
