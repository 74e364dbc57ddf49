/* A shim over the "unix" VFS whose files offer only the version-1 methods.
 * Each open file is ours (base) followed by the real one. */
#include "store/nowal_vfs.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <uv.h>

#define NAME        "glovebox-nowal"
#define READER_NAME "glovebox-nowal-reader"

struct shim_file {
    sqlite3_file base;
    sqlite3_file *real; /* right behind this struct, real->pMethods NULL when not open */
};

static sqlite3_vfs *unix_vfs;
static sqlite3_vfs shim_vfs;
static sqlite3_vfs reader_vfs;
static uv_once_t once = UV_ONCE_INIT;

static sqlite3_file *real_of(sqlite3_file *f)
{
    return ((struct shim_file *)f)->real;
}

static int shim_close(sqlite3_file *f)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods ? r->pMethods->xClose(r) : SQLITE_OK;
}

static int shim_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
    return real_of(f)->pMethods->xRead(real_of(f), buf, n, off);
}

static int shim_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
    return real_of(f)->pMethods->xWrite(real_of(f), buf, n, off);
}

static int shim_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    return real_of(f)->pMethods->xTruncate(real_of(f), size);
}

static int shim_sync(sqlite3_file *f, int flags)
{
    return real_of(f)->pMethods->xSync(real_of(f), flags);
}

static int shim_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
    return real_of(f)->pMethods->xFileSize(real_of(f), size);
}

static int shim_lock(sqlite3_file *f, int level)
{
    return real_of(f)->pMethods->xLock(real_of(f), level);
}

static int shim_unlock(sqlite3_file *f, int level)
{
    return real_of(f)->pMethods->xUnlock(real_of(f), level);
}

static int shim_check_reserved(sqlite3_file *f, int *out)
{
    return real_of(f)->pMethods->xCheckReservedLock(real_of(f), out);
}

static int shim_file_control(sqlite3_file *f, int op, void *arg)
{
    /* A memory-mapped database is exactly what this VFS avoids. */
    if (op == SQLITE_FCNTL_MMAP_SIZE)
        return SQLITE_NOTFOUND;
    return real_of(f)->pMethods->xFileControl(real_of(f), op, arg);
}

static int shim_sector_size(sqlite3_file *f)
{
    return real_of(f)->pMethods->xSectorSize(real_of(f));
}

static int shim_device_characteristics(sqlite3_file *f)
{
    return real_of(f)->pMethods->xDeviceCharacteristics(real_of(f));
}

static const sqlite3_io_methods shim_methods = {
    .iVersion = 1,
    .xClose = shim_close,
    .xRead = shim_read,
    .xWrite = shim_write,
    .xTruncate = shim_truncate,
    .xSync = shim_sync,
    .xFileSize = shim_file_size,
    .xLock = shim_lock,
    .xUnlock = shim_unlock,
    .xCheckReservedLock = shim_check_reserved,
    .xFileControl = shim_file_control,
    .xSectorSize = shim_sector_size,
    .xDeviceCharacteristics = shim_device_characteristics,
};

static int shim_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags,
                     int *out_flags)
{
    (void)vfs;
    struct shim_file *s = (struct shim_file *)f;
    s->real = (sqlite3_file *)(s + 1);
    s->real->pMethods = NULL;
    int rc = unix_vfs->xOpen(unix_vfs, name, s->real, flags, out_flags);
    /* On failure SQLite calls no method; on success every call comes here. */
    f->pMethods = s->real->pMethods ? &shim_methods : NULL;
    return rc;
}

/* SQLite opens a database's -wal whenever that file exists, whatever the
 * database header says. glovebox writes a rollback journal, so a -wal
 * beside its log was put there by someone else; a reader that opened it
 * would need shared memory (which this VFS has not) and fail. The reader
 * does not see it: it reads what the database file holds. The writer
 * takes such a file over in exclusive mode and removes it. */
static bool is_wal(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, "-wal") == 0;
}

static int reader_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
    (void)vfs;
    if (flags == SQLITE_ACCESS_EXISTS && is_wal(name)) {
        *out = 0;
        return SQLITE_OK;
    }
    return unix_vfs->xAccess(unix_vfs, name, flags, out);
}

static void register_shim(void)
{
    unix_vfs = sqlite3_vfs_find("unix");
    if (!unix_vfs)
        return;
    shim_vfs = *unix_vfs;
    shim_vfs.pNext = NULL;
    shim_vfs.zName = NAME;
    shim_vfs.szOsFile = (int)sizeof(struct shim_file) + unix_vfs->szOsFile;
    shim_vfs.xOpen = shim_open;
    reader_vfs = shim_vfs;
    reader_vfs.zName = READER_NAME;
    reader_vfs.xAccess = reader_access;
    if (sqlite3_vfs_register(&shim_vfs, 0) != SQLITE_OK ||
        sqlite3_vfs_register(&reader_vfs, 0) != SQLITE_OK)
        unix_vfs = NULL;
}

const char *nowal_vfs_name(void)
{
    uv_once(&once, register_shim);
    return unix_vfs ? NAME : NULL;
}

const char *nowal_vfs_reader_name(void)
{
    uv_once(&once, register_shim);
    return unix_vfs ? READER_NAME : NULL;
}
