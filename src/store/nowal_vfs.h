/* An SQLite VFS that cannot share memory between processes: the "unix" VFS
 * with version-1 file methods (no xShmMap, no xFetch). SQLite then never
 * maps a -shm file or the database itself, so another process of the same
 * user truncating those files cannot kill glovebox with SIGBUS; a WAL file
 * is usable only under locking_mode=EXCLUSIVE, whose index lives on the
 * heap. Any other attempt to use WAL fails with SQLITE_CANTOPEN instead. */
#pragma once

/* The VFS's name for sqlite3_open_v2, registered on first use (thread-safe).
 * NULL when the "unix" VFS is missing. */
const char *nowal_vfs_name(void);

/* The same for readers of a log in rollback-journal mode (glovebox audit):
 * a -wal file beside the database is not seen (glovebox never writes one;
 * SQLite would otherwise try to open it, which needs shared memory). Open
 * with SQLITE_OPEN_READONLY. NULL when the "unix" VFS is missing. */
const char *nowal_vfs_reader_name(void);
