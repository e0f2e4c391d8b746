/* lib/progress.h: one line of progress on a terminal, for long work in the
 * command-line tools (ovsdb-tool compact, convert, cluster-to-standalone;
 * ovsdb-client backup, restore).
 *
 * Off unless a program turns it on with progress_enable(), which does so
 * only if standard error is a terminal: piped or redirected output gets
 * nothing extra.  Code anywhere may report (reading a log, writing a
 * snapshot, receiving a reply); when off, a report costs one test.
 *
 *     progress_begin("reading", total_bytes, PROGRESS_BYTES);
 *     ... progress_update(done_bytes); ...
 *     progress_end();
 *
 * The line is "LABEL: WHAT 45% (12.3 of 27.0 MB)", or without a total
 * "LABEL: WHAT 12.3 MB"; it is redrawn at most 10 times a second, drawn at
 * the start and the end of each step, and erased when the step ends, so
 * the program's own output is not mixed with it. */
#ifndef LIB_PROGRESS_H
#define LIB_PROGRESS_H 1

#include <stdbool.h>
#include <stdint.h>

enum progress_unit {
    PROGRESS_BYTES,
    PROGRESS_ROWS,
    PROGRESS_ENTRIES /* Raft log entries. */
};

/* Turns progress on, labelled 'label' (copied), if stderr is a terminal
 * (or if OVSDB_PROGRESS=always, for tests that capture it).  Returns true
 * if it is on. */
bool progress_enable(const char *label);
bool progress_is_enabled(void);
/* Turns it off for good in this process (a forked child that must not
 * draw on its parent's terminal), erasing nothing. */
void progress_disable(void);

/* Starts a step: 'what' (a static string), out of 'total' units (0 if
 * unknown).  A step begun while another runs replaces it. */
void progress_begin(const char *what, uint64_t total, enum progress_unit);
void progress_update(uint64_t done);
/* For work whose end moves while it runs (a member catching up with a
 * leader that keeps committing). */
void progress_set_total(uint64_t total);
void progress_end(void);

#endif /* lib/progress.h */
