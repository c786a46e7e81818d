/*
 * as_fs_order.h — AS-SAFE: what a directory's filesystem promises about a
 * rename made once its file's writeback has ended, which decides how a
 * report is made durable (docs/architecture.md, "What is durable when").
 */
#ifndef PM_REPORTER_AS_FS_ORDER_H
#define PM_REPORTER_AS_FS_ORDER_H

typedef enum as_fs_order {
	/* The rename may reach the disk before the file's blocks and size (ext4
	 * without a journal, filesystems not studied, btrfs among them, and
	 * whatever cannot be told): each file is fsync'd before its rename. */
	AS_FS_UNORDERED,
	/* It reaches the disk only with or after them (XFS): rename, then fsync
	 * the directory and the files. */
	AS_FS_ORDERED,
	/* Nothing reaches a disk (tmpfs): as ordered, and its fsyncs cost
	 * nothing, so none is lent to another thread. */
	AS_FS_IN_MEMORY,
	/* Ordered, and a directory's fsync commits the whole running transaction
	 * behind a cache flush (ext4 with a journal): rename, then fsync the
	 * directory alone. */
	AS_FS_DIR_COMMITS_ALL,
} as_fs_order;

as_fs_order as_fs_order_of(int dir);

#endif
