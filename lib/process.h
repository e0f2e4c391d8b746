/* lib/process.h: a child process that the main loop waits for.
 *
 * process_start() runs a program in a child process that inherits the
 * standard streams; process_exited() tells, without blocking, whether it
 * has ended, and process_wait() wakes poll_block() when it does (a SIGCHLD
 * handler writes to a self-pipe; the handler does nothing else).  Only the
 * child started here is reaped: other children (a compaction, say) stay
 * their owners' to wait for.
 *
 * One thread: call these from the main loop only. */
#ifndef LIB_PROCESS_H
#define LIB_PROCESS_H 1

#include <stdbool.h>

struct process;

/* Starts 'argv[0]' (looked up in $PATH) with arguments 'argv' in a child.
 * Returns 0 and sets '*processp', which the caller must free with
 * process_destroy(), or returns an errno value. */
int process_start(char *const argv[], struct process **processp);

/* True once the child has ended (it is reaped then). */
bool process_exited(struct process *);
/* The child's wait status; only meaningful once process_exited(). */
int process_status(const struct process *);
/* Describes wait status 'status' ("exit status 3", "killed (Killed)").
 * Caller must free with free(). */
char *process_status_msg(int status);

/* Makes the next poll_block() wake up when the child ends. */
void process_wait(struct process *);

/* Forgets the child (it is not killed).  NULL is fine. */
void process_destroy(struct process *);

#endif /* lib/process.h */
