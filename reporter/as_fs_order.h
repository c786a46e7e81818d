/*
 * as_fs_order.h — AS-SAFE: whether a directory's filesystem can commit a
 * rename before the blocks its file's finished writeback wrote.
 */
#ifndef PM_REPORTER_AS_FS_ORDER_H
#define PM_REPORTER_AS_FS_ORDER_H

#include <stdbool.h>

/*
 * True when a rename made once a file's writeback has ended reaches the
 * disk only with or after that file's blocks and size: ext4 with a journal,
 * XFS, and tmpfs (where nothing survives a power cut).  False for every
 * other filesystem (ext4 without a journal, and those not studied, btrfs
 * among them) and when it cannot be told (docs/architecture.md, "What is
 * durable when").
 */
bool as_fs_orders_renames(int dir);

#endif
