/* lib/replay.h: recording a process's stream traffic, and running the
 * process again from the recording (--record[=DIR] and --replay[=DIR]).
 *
 * With --record, every stream and pstream the process opens (connections,
 * listeners, the unixctl socket) gets a file in DIR holding what the
 * program saw: the result of each open, listen, accept, connect, and every
 * receive (with its bytes) and send (its result only).  With --replay, the
 * same program opens no sockets: each stream and pstream reads its file
 * instead, so the program receives the same bytes with the same results
 * and, being deterministic given them, does what it did, writing the same
 * database file and log.  It is a debugging aid: a user's misbehaving
 * server can be recorded and then replayed under a debugger.
 *
 * Order across streams.  Every recorded event but an open or a listen
 * carries a number from one clock shared by all the files, and "nothing
 * yet" (EAGAIN from a receive, send or accept) is an event too: the pass
 * of the loop in which something happened is part of what the program
 * saw.  On replay an event is handed out only when its number comes up,
 * so a request that arrived after another's reply on one connection does
 * so on replay too; until then the stream reports EAGAIN and its wait
 * functions wake the loop at once (replaying spins, it never blocks).
 *
 * Files.  "DIR/replay_NAME_K": NAME is the stream's name with every run
 * of characters other than letters made one '_' (so ports and process ids
 * do not matter), K counts the files of that NAME opened so far (from 1).
 * Both runs open the same names in the same order, so they agree.
 * Each file starts with a magic line, then records: a 4-byte event number
 * (UINT32_MAX for unordered ones), a 4-byte kind, a 4-byte value, and for
 * receives and accepts the value's bytes.  Host byte order: a recording
 * is replayed on the machine that made it.
 *
 * Random numbers.  lib/uuid saves its seed with replay_save_seed(), so
 * that replayed transactions insert rows with the same UUIDs.
 *
 * Not recorded: time.  A program that decides by the clock (timers, probes)
 * may act differently on replay; the programs turn inactivity probes and
 * listen retries off while recording or replaying for that reason. */
#ifndef LIB_REPLAY_H
#define LIB_REPLAY_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum replay_mode {
    REPLAY_OFF,
    REPLAY_RECORD, /* --record: real streams, traffic saved. */
    REPLAY_PLAY    /* --replay: no sockets, traffic read. */
};

/* Sets the mode and the directory of the files ('dir' NULL: the run
 * directory).  Called while parsing options, before any stream opens. */
void replay_set_mode(enum replay_mode, const char *dir);
enum replay_mode replay_get_mode(void);

static inline bool
replay_is_active(void)
{
    return replay_get_mode() != REPLAY_OFF;
}

/* What a record says. */
enum replay_kind {
    REPLAY_OPEN = 1, /* Value: 0 connected, 1 connecting, -errno. */
    REPLAY_CONNECT,  /* Value: 0 connected, or -errno. */
    REPLAY_RECV,     /* Value: byte count (bytes follow), 0 EOF, -errno
                      * (-EAGAIN included). */
    REPLAY_SEND,     /* Value: byte count taken, or -errno. */
    REPLAY_LISTEN,   /* Value: bound TCP port (0 if none), or -errno. */
    REPLAY_ACCEPT,   /* Value: size of "NAME\0PEER" (follows), -errno. */
};

struct replay_file;

/* Recording.  Creates the next file for stream 'name' and writes its first
 * record (unordered) 'kind' with 'value' and 'data' ('size' bytes, may be
 * NULL).  Returns the file to go on writing to, or NULL (logged) if it
 * could not be created or if 'value' is negative (a failed open has
 * nothing more to say). */
struct replay_file *replay_record_start(const char *name, enum replay_kind,
                                        int value, const void *data,
                                        size_t size);
/* Appends an ordered record to 'f' (NULL: does nothing). */
void replay_record(struct replay_file *f, enum replay_kind, int value,
                   const void *data, size_t size);

/* Replaying.  Opens the next file for 'name' and reads its first record,
 * which must be of 'kind': stores its value in '*value' and up to 'size'
 * bytes of its body in 'data' (may be NULL).  Returns the file, or NULL
 * with '*value' set to -errno if there is no such file or it is not a
 * recording. */
struct replay_file *replay_play_start(const char *name, enum replay_kind,
                                      int *value, void *data, size_t size);
/* If the next record of 'f' is of 'kind' and its turn has come, takes it:
 * stores its value in '*value', and (if 'data' is nonnull) its bytes,
 * at most 'size' of them, in 'data'.  Returns true if it took one. */
bool replay_play_take(struct replay_file *f, enum replay_kind, int *value,
                      void *data, size_t size);
/* True if 'f' has records left (the caller's wait function then wakes the
 * loop at once). */
bool replay_play_pending(const struct replay_file *f);

void replay_close(struct replay_file *); /* NULL is fine. */

/* Random seeds: when recording, saves the 'size' bytes of 'seed' as the
 * recording's seed 'name'; when replaying, overwrites 'seed' with the
 * saved ones.  Does nothing when off. */
void replay_save_seed(const char *name, void *seed, size_t size);

/* Command-line support, as lib/vlog.h's, with the long options
 *     {"record", optional_argument, NULL, OPT_RECORD},
 *     {"replay", optional_argument, NULL, OPT_REPLAY}, */
#define REPLAY_OPTION_ENUMS OPT_RECORD = UCHAR_MAX + 4000, OPT_REPLAY
#define REPLAY_OPTION_HANDLERS                                                \
    case OPT_RECORD:                                                          \
        replay_set_mode(REPLAY_RECORD, optarg);                               \
        break;                                                                \
    case OPT_REPLAY:                                                          \
        replay_set_mode(REPLAY_PLAY, optarg);                                 \
        break;

/* Prints the options' help text to stdout. */
void replay_usage(void);

#endif /* lib/replay.h */
