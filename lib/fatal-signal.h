/* lib/fatal-signal.h: clean exit on SIGTERM, SIGINT, SIGHUP, SIGALRM.
 *
 * The handler only records the signal; the work happens in
 * fatal_signal_run(), which poll_block() calls for you: it runs the
 * registered hooks (e.g. remove a unix socket file, the pidfile), then
 * re-raises the signal with its default action, so the process dies "by
 * signal" like the reference.  Registered files are also removed at normal
 * exit().  SIGPIPE is ignored (sends report EPIPE instead).
 *
 * Hooks run in the main thread, never in the signal handler. */
#ifndef LIB_FATAL_SIGNAL_H
#define LIB_FATAL_SIGNAL_H 1

#include <stdbool.h>

/* Installs the handlers (idempotent; the other functions call it). */
void fatal_signal_init(void);

/* Registers 'hook_cb(aux)' to run on a fatal signal and, if 'run_at_exit',
 * at exit() too.  'cancel_cb(aux)', if nonnull, runs instead in a child
 * after fatal_signal_fork(). */
void fatal_signal_add_hook(void (*hook_cb)(void *aux),
                           void (*cancel_cb)(void *aux), void *aux,
                           bool run_at_exit);

/* Removes 'file' (copied) at a fatal signal or exit. */
void fatal_signal_add_file_to_unlink(const char *file);
/* Forgets 'file'. */
void fatal_signal_remove_file_to_unlink(const char *file);
/* Unlinks 'file' now and forgets it.  Returns 0 or an errno. */
int fatal_signal_unlink_file_now(const char *file);

/* If a fatal signal arrived: runs the hooks and dies by that signal. */
void fatal_signal_run(void);
/* Wakes poll_block() when a fatal signal arrives. */
void fatal_signal_wait(void);

/* Call in a forked child that takes over as the program (lib/daemon's
 * --detach does): it forgets the files registered so far and runs the
 * hooks' cancel callbacks, then handles signals and exit like its parent.
 * A child that does not call this dies by fatal signals at once and runs
 * no hooks at exit, so it never removes its parent's files. */
void fatal_signal_fork(void);

#endif /* lib/fatal-signal.h */
