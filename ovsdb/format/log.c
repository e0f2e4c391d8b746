/* ovsdb/format/log.c: append-only record log.  See log.h for the format and
 * the rules; this file adds the state machine and the I/O seam. */
#include <config.h>

#include "ovsdb/format/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/uio.h>
#include "lib/allocator.h"
#include "lib/dirs.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/progress.h"
#include "lib/sha1.h"
#include "lib/util.h"
#include "ovsdb/engine/error.h"

#define MAGIC "OVSDB JSON"
#define CLUSTER_MAGIC "OVSDB CLUSTER"
#define SHA1_HEX_LEN 40
#define MAX_HEADER_SIZE 128         /* Longer header lines are corrupt. */
#define READ_BUF_SIZE 65536

enum log_state {
    LOG_READ,               /* Reading records. */
    LOG_READ_ERROR,         /* Hit a bad record; 'error' says which. */
    LOG_WRITE,              /* Appending at 'offset'. */
    LOG_BROKEN,             /* A failed write could not be undone. */
};

struct ovsdb_log {
    char *name;                 /* For messages: as the caller named it. */
    char *path;                 /* The file: 'name', links followed. */
    enum ovsdb_log_mode mode;
    enum ovsdb_log_kind kind;   /* Never OVSDB_LOG_ANY. */
    enum log_state state;
    struct ovsdb_error *error;  /* For LOG_READ_ERROR and LOG_BROKEN. */
    bool read_failed;           /* LOG_READ_ERROR came from a failed read()
                                 * call, not from a bad record: the rest of
                                 * the file may be good, so never truncate
                                 * it. */
    int fd;
    int lock_fd;                /* -1 if no lock held. */
    off_t offset;               /* End of the last good record. */
    unsigned long long n_records;

    /* Read buffer: rbuf[rbuf_pos..rbuf_len) holds file bytes starting at
     * file offset 'offset'. */
    char *rbuf;
    size_t rbuf_pos, rbuf_len;
    bool eof;
    bool progress; /* Reading is shown by lib/progress. */
};

/* ---------------------------------------------------------------------
 * The I/O seam.  Every call that touches the file system goes through one
 * of these, so a test can make the N-th one fail. */

/* Which calls a fault counts and fails. */
enum io_kind {
    IO_ANY,                     /* Every call. */
    IO_WRITE,                   /* Only writes. */
    IO_FSYNC,                   /* Only fsyncs. */
    IO_N_KINDS
};

static unsigned long long io_calls[IO_N_KINDS];
static enum io_kind fault_kind;
static unsigned long long fault_at;     /* 0: no fault. */
static unsigned long long fault_count;  /* Calls to fail from 'fault_at'. */
static int fault_error;
static bool fault_env_read;

static void
inject(enum io_kind kind, unsigned long long nth, int error,
       unsigned long long count)
{
    fault_env_read = true;
    fault_kind = kind;
    fault_at = nth ? io_calls[kind] + nth : 0;
    fault_error = error;
    fault_count = count;
}

void
ovsdb_log_inject_fault(unsigned long long nth, int error, bool sticky)
{
    inject(IO_ANY, nth, error, sticky ? ULLONG_MAX : 1);
}

unsigned long long
ovsdb_log_io_count(void)
{
    return io_calls[IO_ANY];
}

static void
read_fault_env(void)
{
    fault_env_read = true;
    const char *s = getenv("OVSDB_LOG_FAULT");
    if (!s || !*s) {
        return;
    }
    char *copy = xstrdup(s);
    char *save = NULL;
    char *field = strtok_r(copy, ":", &save);
    enum io_kind kind = IO_ANY;
    if (field && !strcmp(field, "write")) {
        kind = IO_WRITE;
        field = strtok_r(NULL, ":", &save);
    } else if (field && !strcmp(field, "fsync")) {
        kind = IO_FSYNC;
        field = strtok_r(NULL, ":", &save);
    }
    const char *n = field;
    const char *e = strtok_r(NULL, ":", &save);
    const char *flag = strtok_r(NULL, ":", &save);
    long long nth, count = 1;
    int error = 0;
    if (e && !strcmp(e, "ENOSPC")) {
        error = ENOSPC;
    } else if (e && !strcmp(e, "EIO")) {
        error = EIO;
    } else if (e) {
        str_to_int(e, &error);
    }
    if (flag && !strcmp(flag, "sticky")) {
        count = LLONG_MAX;
    } else if (flag && (!str_to_llong(flag, &count) || count < 1)) {
        count = 1;
    }
    if (n && str_to_llong(n, &nth) && nth > 0 && error > 0) {
        inject(kind, nth, error, count);
    }
    free(copy);
}

/* Counts one call of 'kind'.  Returns 0, or the injected error for this
 * call. */
static int
io_fault(enum io_kind kind)
{
    if (!fault_env_read) {
        read_fault_env();
    }
    io_calls[IO_ANY]++;
    if (kind != IO_ANY) {
        io_calls[kind]++;
    }
    if (fault_at && (fault_kind == IO_ANY || fault_kind == kind)) {
        unsigned long long n = io_calls[fault_kind];
        if (n >= fault_at && n - fault_at < fault_count) {
            return fault_error;
        }
    }
    return 0;
}

static int
io_open(const char *name, int flags, mode_t mode, int *fdp)
{
    int error = io_fault(IO_ANY);
    if (error) {
        *fdp = -1;
        return error;
    }
    *fdp = open(name, flags | O_CLOEXEC, mode);
    return *fdp < 0 ? errno : 0;
}

/* Reads up to 'size' bytes at the current position.  Returns 0 and the
 * count in '*np' (0 at end of file), or an errno. */
static int
io_read(int fd, void *buf, size_t size, size_t *np)
{
    int error = io_fault(IO_ANY);
    *np = 0;
    if (error) {
        return error;
    }
    for (;;) {
        ssize_t n = read(fd, buf, size);
        if (n >= 0) {
            *np = n;
            return 0;
        } else if (errno != EINTR) {
            return errno;
        }
    }
}

/* Writes all of the 'n' buffers of 'iov' at 'offset', one after the other,
 * and uses 'iov' as scratch space.  One seam call, however many write()s
 * the kernel needs: buffers let a big record be written without copying
 * it behind its header. */
static int
io_pwritev(int fd, struct iovec *iov, size_t n, off_t offset)
{
    int error = io_fault(IO_WRITE);
    if (error) {
        /* A real full disk often accepts part of a write: imitate that, so
         * the undo path is exercised. */
        size_t size = 0;
        for (size_t i = 0; i < n; i++) {
            size += iov[i].iov_len;
        }
        if (size > 1 && pwrite(fd, iov[0].iov_base,
                               MIN(size / 2, iov[0].iov_len), offset) < 0) {
            return errno;
        }
        return error;
    }
    for (;;) {
        while (n && !iov->iov_len) {
            iov++;
            n--;
        }
        if (!n) {
            return 0;
        }
        ssize_t w = pwritev(fd, iov, n, offset);
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        } else if (w == 0) {
            return ENOSPC;
        }
        offset += w;
        while (n && (size_t) w >= iov->iov_len) {
            w -= iov->iov_len;
            iov++;
            n--;
        }
        if (n) {
            iov->iov_base = (char *) iov->iov_base + w;
            iov->iov_len -= w;
        }
    }
}

static int
io_fsync(int fd)
{
    int error = io_fault(IO_FSYNC);
    if (error) {
        return error;
    }
    return fsync(fd) ? errno : 0;
}

static int
io_ftruncate(int fd, off_t size)
{
    int error = io_fault(IO_ANY);
    if (error) {
        return error;
    }
    return ftruncate(fd, size) ? errno : 0;
}

static int
io_rename(const char *old, const char *new)
{
    int error = io_fault(IO_ANY);
    if (error) {
        return error;
    }
    return rename(old, new) ? errno : 0;
}

/* Fsyncs the directory that contains 'name', so a created or renamed entry
 * survives a crash. */
static int
io_fsync_dir(const char *name)
{
    const char *slash = strrchr(name, '/');
    char *dir = (!slash ? xstrdup(".")
                 : slash == name ? xstrdup("/")
                 : xmemdup0(name, slash - name));
    int fd;
    int error = io_open(dir, O_RDONLY | O_DIRECTORY, 0, &fd);
    if (!error) {
        error = io_fsync(fd);
        close(fd);
    }
    free(dir);
    return error;
}

/* ---------------------------------------------------------------------
 * Errors. */

static struct ovsdb_error * PRINTF_FORMAT(3, 4)
io_error(const char *name, int err, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    char *msg = xvasprintf(fmt, args);
    va_end(args);
    struct ovsdb_error *error = ovsdb_error(OVSDB_E_IO, "%s: %s (%s)", name,
                                            msg, ovs_strerror(err));
    free(msg);
    return error;
}

/* ---------------------------------------------------------------------
 * Locking. */

static char *
lock_name(const char *name)
{
    const char *slash = strrchr(name, '/');
    if (!slash) {
        return xasprintf(".%s.~lock~", name);
    }
    return xasprintf("%.*s/.%s.~lock~", (int) (slash - name), name,
                     slash + 1);
}

/* Takes an open-file-description fcntl lock on the lockfile's first byte:
 * it conflicts with the reference's (process-associated, whole-file) fcntl
 * locks, and also with a second open in this same process.  A
 * process-associated lock on the rest of the file (which cannot conflict
 * with our own first byte) lets another process learn our pid with
 * F_GETLK, as the reference's lock does: a refused lock names its holder. */
static struct ovsdb_error *
take_lock(const char *path, const char *name, int *lock_fdp)
{
    char *lname = lock_name(path);
    int fd;
    int error = io_open(lname, O_RDWR | O_CREAT, 0600, &fd);
    free(lname);
    if (error) {
        return io_error(name, error, "failed to open lockfile");
    }
    struct flock l = {
        .l_type = F_WRLCK,
        .l_whence = SEEK_SET,
        .l_start = 0,
        .l_len = 1,
    };
    struct flock rest = {
        .l_type = F_WRLCK,
        .l_whence = SEEK_SET,
        .l_start = 1,
        .l_len = 0,
    };
    /* Best effort, and first, so that the kernel lists it before the
     * other: without it only the pid in other programs' messages is lost.
     * (A second open in this process "takes" it again harmlessly; the
     * first byte's lock below is what excludes it.) */
    struct flock mine = rest;
    int ignored OVS_UNUSED = fcntl(fd, F_SETLK, &mine);
    if (fcntl(fd, F_OFD_SETLK, &l) < 0) {
        error = errno == EACCES ? EAGAIN : errno;
        if (!fcntl(fd, F_GETLK, &rest) && rest.l_type != F_UNLCK
            && rest.l_pid > 0) {
            close(fd);
            return io_error(name, error, "failed to lock lockfile: it is "
                            "already locked by pid %ld", (long) rest.l_pid);
        }
        close(fd);
        return io_error(name, error, "failed to lock lockfile");
    }
    *lock_fdp = fd;
    return NULL;
}

/* ---------------------------------------------------------------------
 * Opening and closing. */

static const char *
kind_magic(enum ovsdb_log_kind kind)
{
    return kind == OVSDB_LOG_CLUSTERED ? CLUSTER_MAGIC : MAGIC;
}

static struct ovsdb_log *
log_new(const char *name, const char *path, enum ovsdb_log_mode mode,
        enum ovsdb_log_kind kind, int fd, int lock_fd)
{
    struct ovsdb_log *log = xzalloc(sizeof *log);
    log->name = xstrdup(name);
    log->path = xstrdup(path);
    log->mode = mode;
    log->kind = kind;
    log->fd = fd;
    log->lock_fd = lock_fd;
    log->state = LOG_READ;
    return log;
}

/* Fills the read buffer so it holds at least 'want' bytes if the file has
 * them.  Returns 0 or an errno. */
static int
fill(struct ovsdb_log *log, size_t want)
{
    if (!log->rbuf) {
        log->rbuf = xmalloc(READ_BUF_SIZE);
    }
    if (log->rbuf_pos > 0) {
        memmove(log->rbuf, log->rbuf + log->rbuf_pos,
                log->rbuf_len - log->rbuf_pos);
        log->rbuf_len -= log->rbuf_pos;
        log->rbuf_pos = 0;
    }
    while (log->rbuf_len < want && !log->eof) {
        size_t n;
        int error = io_read(log->fd, log->rbuf + log->rbuf_len,
                            READ_BUF_SIZE - log->rbuf_len, &n);
        if (error) {
            return error;
        }
        if (!n) {
            log->eof = true;
        }
        log->rbuf_len += n;
    }
    return 0;
}

/* Returns true if 'buf' ('n' bytes) starts with "<magic> ". */
static bool
has_magic(const char *buf, size_t n, const char *magic)
{
    size_t len = strlen(magic);
    return n > len && !memcmp(buf, magic, len) && buf[len] == ' ';
}

struct ovsdb_error *
ovsdb_log_open(const char *name, enum ovsdb_log_mode mode,
               struct ovsdb_log **logp)
{
    return ovsdb_log_open_kind(name, mode, OVSDB_LOG_STANDALONE, logp);
}

/* ovsdb_log_open_kind() for the file 'path', which is not a symbolic
 * link, named 'name' in messages. */
static struct ovsdb_error *
open_resolved(const char *path, const char *name, enum ovsdb_log_mode mode,
              enum ovsdb_log_kind kind, struct ovsdb_log **logp)
{
    *logp = NULL;
    if (kind == OVSDB_LOG_ANY
        && (mode == OVSDB_LOG_CREATE || mode == OVSDB_LOG_CREATE_EXCL)) {
        /* A new file needs to know its magic. */
        abort();
    }

    int lock_fd = -1;
    if (mode != OVSDB_LOG_READ_ONLY) {
        struct ovsdb_error *error = take_lock(path, name, &lock_fd);
        if (error) {
            return error;
        }
    }

    int flags = (mode == OVSDB_LOG_READ_ONLY ? O_RDONLY
                 : mode == OVSDB_LOG_READ_WRITE ? O_RDWR
                 : mode == OVSDB_LOG_CREATE_EXCL ? O_RDWR | O_CREAT | O_EXCL
                 : O_RDWR | O_CREAT);
    int fd;
    int err = io_open(path, flags, 0640, &fd);
    if (err) {
        if (lock_fd >= 0) {
            close(lock_fd);
        }
        return io_error(name, err, "%s failed",
                        flags & O_CREAT ? "create" : "open");
    }

    struct ovsdb_log *log = log_new(name, path, mode,
                                    kind == OVSDB_LOG_ANY
                                    ? OVSDB_LOG_STANDALONE : kind,
                                    fd, lock_fd);
    struct ovsdb_error *error = NULL;
    if (mode == OVSDB_LOG_CREATE_EXCL) {
        err = io_fsync_dir(path);
        if (err) {
            error = io_error(name, err, "fsync of directory failed");
        }
        log->state = LOG_WRITE;
    } else {
        /* Identify the file type from its first bytes. */
        err = fill(log, strlen(CLUSTER_MAGIC));
        if (err) {
            error = io_error(name, err, "read failed");
        } else if (!log->rbuf_len) {
            if (mode == OVSDB_LOG_CREATE) {
                err = io_fsync_dir(path);
                if (err) {
                    error = io_error(name, err, "fsync of directory failed");
                }
                log->state = LOG_WRITE;
            } else if (kind != OVSDB_LOG_CLUSTERED) {
                /* An empty clustered log reads as empty, as in the
                 * reference; the standalone callers want a file type. */
                error = ovsdb_error(OVSDB_E_OVSDB,
                                    "%s: cannot identify file type", name);
            }
        } else {
            enum ovsdb_log_kind actual;
            if (has_magic(log->rbuf, log->rbuf_len, CLUSTER_MAGIC)) {
                actual = OVSDB_LOG_CLUSTERED;
            } else if (has_magic(log->rbuf, log->rbuf_len, MAGIC)) {
                actual = OVSDB_LOG_STANDALONE;
            } else {
                actual = OVSDB_LOG_ANY;
            }
            if (actual == OVSDB_LOG_ANY) {
                error = ovsdb_error(OVSDB_E_OVSDB,
                                    "%s: unexpected file format", name);
            } else if (kind == OVSDB_LOG_STANDALONE
                       && actual == OVSDB_LOG_CLUSTERED) {
                /* The reference's words for a standalone-only use. */
                error = ovsdb_error(OVSDB_E_OVSDB, "%s: cannot apply this "
                                    "operation to clustered database file",
                                    name);
            } else if (kind != OVSDB_LOG_ANY && kind != actual) {
                error = ovsdb_error(OVSDB_E_OVSDB,
                                    "%s: cannot identify file type", name);
            } else {
                log->kind = actual;
            }
        }
    }
    if (error) {
        ovsdb_log_close(log);
        return error;
    }
    *logp = log;
    return NULL;
}

/* A database path may be a symbolic link, even one whose target does not
 * exist yet (Debian's and Red Hat's conf.db layouts): as the reference,
 * the log works on the file the link leads to, so that the lockfile and a
 * compaction's temporary file are beside that file, and the link stays.
 * That file's name is made absolute, so that a compaction still finds it
 * after a daemon changed directory to "/"; messages keep 'name' as the
 * caller gave it. */
struct ovsdb_error *
ovsdb_log_open_kind(const char *name, enum ovsdb_log_mode mode,
                    enum ovsdb_log_kind kind, struct ovsdb_log **logp)
{
    char *target = dirs_follow_symlinks(name);
    char cwd[PATH_MAX];
    if (target[0] != '/' && getcwd(cwd, sizeof cwd)) {
        char *abs = dirs_abs_file_name(cwd, target);
        free(target);
        target = abs;
    }
    struct ovsdb_error *error = open_resolved(target, name, mode, kind, logp);
    free(target);
    return error;
}

static void
log_free(struct ovsdb_log *log, bool close_fd)
{
    if (close_fd && log->fd >= 0) {
        close(log->fd);
    }
    if (log->lock_fd >= 0) {
        close(log->lock_fd);
    }
    ovsdb_error_destroy(log->error);
    free(log->rbuf);
    free(log->name);
    free(log->path);
    free(log);
}

void
ovsdb_log_close(struct ovsdb_log *log)
{
    if (log) {
        log_free(log, true);
    }
}

const char *
ovsdb_log_get_name(const struct ovsdb_log *log)
{
    return log->name;
}

enum ovsdb_log_kind
ovsdb_log_get_kind(const struct ovsdb_log *log)
{
    return log->kind;
}

off_t
ovsdb_log_get_offset(const struct ovsdb_log *log)
{
    return log->offset;
}

unsigned long long
ovsdb_log_get_n_records(const struct ovsdb_log *log)
{
    return log->n_records;
}

bool
ovsdb_log_is_broken(const struct ovsdb_log *log)
{
    return log->state == LOG_BROKEN;
}

/* ---------------------------------------------------------------------
 * Reading. */

/* Returns how much of the header line 'line' ('n' bytes) to show in an
 * error, as the reference does: the magic ("OVSDB WORD") when the line
 * starts with one, else the whole line. */
static size_t
header_shown(const char *line, size_t n)
{
    const char *lead = "OVSDB ";
    size_t llen = strlen(lead);
    if (n > llen && !memcmp(line, lead, llen)) {
        const char *sp = memchr(line + llen, ' ', n - llen);
        if (sp) {
            return sp - line;
        }
    }
    return n;
}

/* Parses "OVSDB JSON <size> <sha1>" (without the newline) from 'line' of
 * 'n' bytes.  Returns true on success. */
static bool
parse_header(const char *line, size_t n, const char *magic, size_t *sizep,
             char sha1[SHA1_HEX_LEN + 1])
{
    size_t mlen = strlen(magic);
    if (!has_magic(line, n, magic)) {
        return false;
    }
    const char *p = line + mlen + 1, *end = line + n;
    while (p < end && *p == ' ') {
        p++;
    }
    if (p >= end || *p < '0' || *p > '9') {
        return false;
    }
    unsigned long long size = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        if (size > (ULLONG_MAX - 9) / 10) {
            return false;
        }
        size = size * 10 + (*p - '0');
    }
    if (p >= end || *p != ' ' || size > SIZE_MAX / 2) {
        return false;
    }
    p++;
    if (end - p != SHA1_HEX_LEN) {
        return false;
    }
    for (int i = 0; i < SHA1_HEX_LEN; i++) {
        char c = p[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return false;
        }
        sha1[i] = c;
    }
    sha1[SHA1_HEX_LEN] = '\0';
    *sizep = size;
    return true;
}

/* Writes the SHA-1 of 'n' buffers as 40 lowercase hex digits and a NUL. */
static void
sha1_hex_iov(const struct iovec *iov, size_t n, char hex[SHA1_HEX_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";
    uint8_t md[SHA1_DIGEST_SIZE];
    struct sha1_ctx ctx;

    sha1_init(&ctx);
    for (size_t i = 0; i < n; i++) {
        sha1_update(&ctx, iov[i].iov_base, iov[i].iov_len);
    }
    sha1_final(&ctx, md);
    for (int i = 0; i < SHA1_DIGEST_SIZE && i < SHA1_HEX_LEN / 2; i++) {
        hex[i * 2] = digits[md[i] >> 4];
        hex[i * 2 + 1] = digits[md[i] & 15];
    }
    hex[SHA1_HEX_LEN] = '\0';
}

static void
sha1_hex(const void *data, size_t size, char hex[SHA1_HEX_LEN + 1])
{
    struct iovec iov = { (void *) data, size };
    sha1_hex_iov(&iov, 1, hex);
}

/* Reads one record.  Returns NULL with '*jsonp' set (or NULL at a clean end
 * of file), or an error describing the bad record. */
static struct ovsdb_error *
read_record(struct ovsdb_log *log, json_t **jsonp)
{
    long long start = log->offset;

    int err = fill(log, MAX_HEADER_SIZE);
    if (err) {
        log->read_failed = true;
        return io_error(log->name, err, "error reading log at offset %lld",
                        start);
    }
    const char *line = log->rbuf + log->rbuf_pos;
    size_t avail = log->rbuf_len - log->rbuf_pos;
    if (!avail) {
        return NULL;
    }
    const char *nl = memchr(line, '\n', MIN(avail, MAX_HEADER_SIZE));
    size_t size;
    char expected[SHA1_HEX_LEN + 1];
    if (!nl || !parse_header(line, nl - line, kind_magic(log->kind), &size,
                             expected)) {
        size_t show = header_shown(line, nl ? (size_t) (nl - line)
                                             : MIN(avail, 64));
        if (!start) {
            return ovsdb_error(OVSDB_E_OVSDB, "%s: unexpected file format",
                               log->name);
        }
        return ovsdb_error(OVSDB_E_SYNTAX, "%s: parse error at offset %lld "
                           "in header line \"%.*s\"", log->name, start,
                           (int) show, line);
    }
    size_t header_size = nl - line + 1;
    log->rbuf_pos += header_size;
    long long body_start = start + header_size;

    /* Gather the body: first from the buffer, then straight from the
     * file. */
    char *body = xmalloc(size + 1);
    size_t have = MIN(size, log->rbuf_len - log->rbuf_pos);
    memcpy(body, log->rbuf + log->rbuf_pos, have);
    log->rbuf_pos += have;
    while (have < size && !log->eof) {
        size_t n;
        err = io_read(log->fd, body + have, size - have, &n);
        if (err) {
            free(body);
            log->read_failed = true;
            return io_error(log->name, err, "error reading %zu bytes "
                            "starting at offset %lld", size, body_start);
        }
        if (!n) {
            log->eof = true;
        }
        have += n;
    }
    if (have < size) {
        free(body);
        return io_error(log->name, EOF, "error reading %zu bytes starting "
                        "at offset %lld", size, body_start);
    }

    char actual[SHA1_HEX_LEN + 1];
    sha1_hex(body, size, actual);
    if (strcmp(actual, expected)) {
        free(body);
        return ovsdb_error(OVSDB_E_SYNTAX, "%s: %zu bytes starting at offset "
                           "%lld have SHA-1 hash %s but should have hash %s",
                           log->name, size, body_start, actual, expected);
    }

    char *msg = NULL;
    json_t *json = jsonx_from_buffer(body, size, &msg);
    free(body);
    if (!json) {
        struct ovsdb_error *error = ovsdb_error(
            OVSDB_E_SYNTAX, "%s: %zu bytes starting at offset %lld are not "
            "valid JSON (%s)", log->name, size, body_start, msg);
        free(msg);
        return error;
    }
    log->offset = body_start + size;
    log->n_records++;
    *jsonp = json;
    return NULL;
}

struct ovsdb_error *
ovsdb_log_read(struct ovsdb_log *log, json_t **jsonp)
{
    *jsonp = NULL;
    switch (log->state) {
    case LOG_READ: {
        if (progress_is_enabled() && !log->progress) {
            /* Only the command-line tools turn it on (lib/progress.h). */
            struct stat st;
            log->progress = true;
            progress_begin("reading",
                           (!fstat(log->fd, &st) && S_ISREG(st.st_mode)
                                ? st.st_size
                                : 0),
                           PROGRESS_BYTES);
        }
        struct ovsdb_error *error = read_record(log, jsonp);
        if (error) {
            log->state = LOG_READ_ERROR;
            log->error = ovsdb_error_clone(error);
        }
        if (log->progress) {
            if (error || !*jsonp) {
                progress_end();
            } else {
                progress_update(log->offset);
            }
        }
        return error;
    }
    case LOG_READ_ERROR:
        return ovsdb_error_clone(log->error);
    case LOG_WRITE:
    case LOG_BROKEN:
    default:
        return NULL;
    }
}

/* ---------------------------------------------------------------------
 * Writing. */

/* Room for "OVSDB JSON <size> <sha1>\n" and a null. */
#define HEADER_MAX 96

/* Formats into 'header' the header, with the magic of 'kind', of the
 * record whose body is 'size' bytes of 'text' and a newline.  Returns the
 * header's length. */
static size_t
format_header(enum ovsdb_log_kind kind, const char *text, size_t size,
              char header[HEADER_MAX])
{
    struct iovec iov[2] = { { (void *) text, size }, { "\n", 1 } };
    const char *magic = kind_magic(kind);
    size_t magic_len = strlen(magic);

    /* "MAGIC LENGTH SHA1\n", without a printf (one per record). */
    char *p = header;
    memcpy(p, magic, magic_len);
    p += magic_len;
    *p++ = ' ';
    p += ullong_to_dec(size + 1, p);
    *p++ = ' ';
    sha1_hex_iov(iov, 2, p);
    p += SHA1_HEX_LEN;
    *p++ = '\n';
    return p - header;
}

void
ovsdb_log_put_record_kind(struct ds *out, enum ovsdb_log_kind kind,
                          const char *text, size_t size)
{
    char header[HEADER_MAX];
    size_t header_size = format_header(kind, text, size, header);
    ds_reserve(out, out->length + header_size + size + 1);
    ds_put_buffer(out, header, header_size);
    ds_put_buffer(out, text, size);
    ds_put_char(out, '\n');
}

void
ovsdb_log_put_record(struct ds *out, const char *text, size_t size)
{
    ovsdb_log_put_record_kind(out, OVSDB_LOG_STANDALONE, text, size);
}

void
ovsdb_log_finish_record_kind(struct ds *out, enum ovsdb_log_kind kind,
                             size_t start)
{
    size_t size = out->length - start;
    char header[HEADER_MAX];
    size_t header_size = format_header(kind, out->string + start, size,
                                       header);
    ds_put_uninit(out, header_size + 1);
    memmove(out->string + start + header_size, out->string + start, size);
    memcpy(out->string + start, header, header_size);
    out->string[out->length - 1] = '\n';
}

void
ovsdb_log_finish_record(struct ds *out, size_t start)
{
    ovsdb_log_finish_record_kind(out, OVSDB_LOG_STANDALONE, start);
}

char *
ovsdb_log_format_record(const json_t *json, size_t *sizep)
{
    struct ds body = DS_EMPTY_INITIALIZER, rec = DS_EMPTY_INITIALIZER;
    jsonx_put(&body, json);
    ovsdb_log_put_record(&rec, body.string, body.length);
    ds_destroy(&body);
    *sizep = rec.length;
    return ds_steal_cstr(&rec);
}

static struct ovsdb_error *
broken_error(const struct ovsdb_log *log)
{
    return ovsdb_error_clone(log->error);
}

void
ovsdb_log_forget_tail(struct ovsdb_log *log, off_t offset,
                      unsigned long long n_records, struct ovsdb_error *why)
{
    if ((log->state != LOG_READ && log->state != LOG_READ_ERROR)
        || offset > log->offset || n_records > log->n_records) {
        /* Not a tail of what was read: keep the file as it is. */
        ovsdb_error_destroy(why);
        return;
    }
    log->offset = offset;
    log->n_records = n_records;
    log->state = LOG_READ_ERROR;
    log->read_failed = false;
    ovsdb_error_destroy(log->error);
    log->error = why;
}

/* Switches a log that was being read to writing, dropping any bad tail. */
static struct ovsdb_error *
start_writing(struct ovsdb_log *log)
{
    if (log->mode == OVSDB_LOG_READ_ONLY) {
        return ovsdb_error(OVSDB_E_IO, "%s: cannot write to a log opened "
                           "read-only", log->name);
    }
    if (log->state == LOG_READ_ERROR && log->read_failed) {
        return ovsdb_error_wrap(ovsdb_error_clone(log->error),
                                "not writing after a failed read");
    }
    if (log->state == LOG_READ || log->state == LOG_READ_ERROR) {
        int err = io_ftruncate(log->fd, log->offset);
        if (err) {
            return io_error(log->name, err, "cannot truncate to length "
                            "%lld", (long long) log->offset);
        }
        log->state = LOG_WRITE;
        ovsdb_error_destroy(log->error);
        log->error = NULL;
        free(log->rbuf);
        log->rbuf = NULL;
        log->rbuf_pos = log->rbuf_len = 0;
    }
    return NULL;
}

static void
make_broken(struct ovsdb_log *log, const struct ovsdb_error *cause)
{
    log->state = LOG_BROKEN;
    ovsdb_error_destroy(log->error);
    log->error = ovsdb_error_clone(cause);
}

/* Appends the 'n' buffers of 'iov', 'size' bytes in all that hold
 * 'n_records' whole records, to 'log'.  Uses 'iov' as scratch space. */
static struct ovsdb_error *
write_iov(struct ovsdb_log *log, struct iovec *iov, size_t n,
          size_t size, unsigned long long n_records)
{
    if (log->state == LOG_BROKEN) {
        return broken_error(log);
    }
    struct ovsdb_error *error = start_writing(log);
    if (error) {
        return error;
    }
    int err = io_pwritev(log->fd, iov, n, log->offset);
    if (err) {
        error = io_error(log->name, err, "write of %zu bytes at offset "
                         "%lld failed", size, (long long) log->offset);
        /* Undo a partial write, so the file still ends at a record
         * boundary. */
        if (io_ftruncate(log->fd, log->offset)) {
            make_broken(log, error);
        }
        return error;
    }
    log->offset += size;
    log->n_records += n_records;
    return NULL;
}

static struct ovsdb_error *
write_buffer(struct ovsdb_log *log, const char *buf, size_t size,
             unsigned long long n_records)
{
    struct iovec iov = { (void *) buf, size };
    return write_iov(log, &iov, 1, size, n_records);
}

struct ovsdb_error *
ovsdb_log_write(struct ovsdb_log *log, const json_t *json)
{
    struct ds body = DS_EMPTY_INITIALIZER;
    jsonx_put(&body, json);
    struct ovsdb_error *error = ovsdb_log_write_text(log, body.string,
                                                     body.length);
    ds_destroy(&body);
    return error;
}

struct ovsdb_error *
ovsdb_log_write_text(struct ovsdb_log *log, const char *text, size_t size)
{
    /* The header, then 'text' where it is: a snapshot's text is as big as
     * the database file, so copying it behind a header would double it. */
    char header[HEADER_MAX];
    size_t header_size = format_header(log->kind, text, size, header);
    struct iovec iov[3] = {
        { header, header_size }, { (void *) text, size }, { "\n", 1 },
    };
    return write_iov(log, iov, 3, header_size + size + 1, 1);
}

struct ovsdb_error *
ovsdb_log_write_records(struct ovsdb_log *log, const char *records,
                        size_t size, unsigned long long n_records)
{
    if (!size) {
        return log->state == LOG_BROKEN ? broken_error(log) : NULL;
    }
    return write_buffer(log, records, size, n_records);
}

struct ovsdb_error *
ovsdb_log_commit_block_or_undo(struct ovsdb_log *log, off_t undo_offset,
                               unsigned long long undo_n_records)
{
    if (log->state == LOG_BROKEN) {
        return broken_error(log);
    }
    if (log->state != LOG_WRITE) {
        return NULL;
    }
    int err = io_fsync(log->fd);
    if (!err) {
        return NULL;
    }
    struct ovsdb_error *error = io_error(log->name, err, "fsync failed");
    if (undo_offset > log->offset || undo_n_records > log->n_records) {
        make_broken(log, error);
        return error;
    }
    /* The records past 'undo_offset' were not acknowledged: cut them off
     * and make the cut durable, so that a crash cannot bring them back.
     * If either step fails, the file's state is unknown. */
    err = io_ftruncate(log->fd, undo_offset);
    if (!err) {
        err = io_fsync(log->fd);
    }
    if (err) {
        make_broken(log, error);
    } else {
        log->offset = undo_offset;
        log->n_records = undo_n_records;
    }
    return error;
}

struct ovsdb_error *
ovsdb_log_commit_block(struct ovsdb_log *log)
{
    if (log->state == LOG_BROKEN) {
        return broken_error(log);
    }
    if (log->state != LOG_WRITE) {
        return NULL;
    }
    int err = io_fsync(log->fd);
    if (err) {
        struct ovsdb_error *error = io_error(log->name, err, "fsync failed");
        make_broken(log, error);
        return error;
    }
    return NULL;
}

/* ---------------------------------------------------------------------
 * Atomic replacement. */

char *
ovsdb_log_tmp_name(const struct ovsdb_log *log)
{
    return xasprintf("%s.tmp", log->path);
}

struct ovsdb_error *
ovsdb_log_replace_start(struct ovsdb_log *old, struct ovsdb_log **newp)
{
    *newp = NULL;
    char *tmp = ovsdb_log_tmp_name(old);
    unlink(tmp);
    int fd;
    int err = io_open(tmp, O_RDWR | O_CREAT | O_EXCL, 0640, &fd);
    if (err) {
        struct ovsdb_error *error = io_error(tmp, err, "create failed");
        free(tmp);
        return error;
    }
    struct ovsdb_log *new = log_new(tmp, tmp, OVSDB_LOG_CREATE, old->kind,
                                    fd, -1);
    free(tmp);
    new->state = LOG_WRITE;
    *newp = new;
    return NULL;
}

struct ovsdb_error *
ovsdb_log_sync_size(struct ovsdb_log *log)
{
    struct stat st;
    if (fstat(log->fd, &st)) {
        return io_error(log->name, errno, "fstat failed");
    }
    log->offset = st.st_size;
    return NULL;
}

struct ovsdb_error *
ovsdb_log_replace_commit(struct ovsdb_log *old, struct ovsdb_log *new)
{
    struct ovsdb_error *error = ovsdb_log_commit_block(new);
    if (error) {
        ovsdb_log_replace_abort(new);
        return error;
    }
    int err = io_rename(new->path, old->path);
    if (err) {
        error = io_error(old->name, err, "rename of %s failed", new->name);
        ovsdb_log_replace_abort(new);
        return error;
    }
    /* The rename happened: from here on 'old' must use the new file even if
     * the directory fsync fails (the rename may then not survive a crash,
     * but the contents are the same either way). */
    err = io_fsync_dir(old->path);

    close(old->fd);
    old->fd = new->fd;
    old->offset = new->offset;
    old->n_records = new->n_records;
    old->state = LOG_WRITE;
    ovsdb_error_destroy(old->error);
    old->error = NULL;
    free(old->rbuf);
    old->rbuf = NULL;
    old->rbuf_pos = old->rbuf_len = 0;
    log_free(new, false);

    return err ? io_error(old->name, err, "fsync of directory failed")
               : NULL;
}

void
ovsdb_log_replace_abort(struct ovsdb_log *new)
{
    if (new) {
        unlink(new->path);
        log_free(new, true);
    }
}

struct ovsdb_error *
ovsdb_log_replace(struct ovsdb_log *log,
                  struct ovsdb_error *(*write)(struct ovsdb_log *new,
                                               void *aux),
                  void *aux)
{
    struct ovsdb_log *new;
    struct ovsdb_error *error = ovsdb_log_replace_start(log, &new);
    if (error) {
        return error;
    }
    error = write(new, aux);
    if (error) {
        ovsdb_log_replace_abort(new);
        return error;
    }
    return ovsdb_log_replace_commit(log, new);
}
