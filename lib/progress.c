/* lib/progress.c: see progress.h. */
#include <config.h>
#include "lib/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/timeval.h"

/* Redraws at most this often (milliseconds). */
#define REDRAW_MSEC 100

static bool enabled;
static char *label;

static bool active;
static const char *what;
static uint64_t total, done;
static enum progress_unit unit;
static long long last_draw;
static int drawn_length; /* Characters on the line now. */

bool
progress_enable(const char *new_label)
{
    const char *force = getenv("OVSDB_PROGRESS");
    enabled = isatty(STDERR_FILENO) || (force && !strcmp(force, "always"));
    free(label);
    label = xstrdup(new_label);
    return enabled;
}

bool
progress_is_enabled(void)
{
    return enabled;
}

void
progress_disable(void)
{
    enabled = active = false;
}

/* Writes 'n' units into 'buf' as a short amount: "512 B", "12.3 MB",
 * "4500 rows". */
static void
format_amount(char *buf, size_t size, uint64_t n)
{
    if (unit == PROGRESS_ROWS) {
        snprintf(buf, size, "%llu rows", (unsigned long long) n);
    } else if (unit == PROGRESS_ENTRIES) {
        snprintf(buf, size, "%llu entries", (unsigned long long) n);
    } else if (n < 1024 * 1024) {
        snprintf(buf, size, "%.1f kB", n / 1024.0);
    } else {
        snprintf(buf, size, "%.1f MB", n / (1024.0 * 1024.0));
    }
}

static void
draw(void)
{
    char line[160], a[32], b[32];
    format_amount(a, sizeof a, done);
    if (total) {
        format_amount(b, sizeof b, total);
        uint64_t shown = done < total ? done : total;
        snprintf(line, sizeof line, "%s: %s %3d%% (%s of %s)", label, what,
                 (int) (shown * 100 / total), a, b);
    } else {
        snprintf(line, sizeof line, "%s: %s %s", label, what, a);
    }
    /* Pad over a longer previous line. */
    int length = strlen(line);
    fprintf(stderr, "\r%s%*s", line,
            drawn_length > length ? drawn_length - length : 0, "");
    fflush(stderr);
    drawn_length = length;
    last_draw = time_msec();
}

void
progress_begin(const char *new_what, uint64_t new_total,
               enum progress_unit new_unit)
{
    if (!enabled) {
        return;
    }
    active = true;
    what = new_what;
    total = new_total;
    unit = new_unit;
    done = 0;
    draw();
}

void
progress_update(uint64_t new_done)
{
    if (!active) {
        return;
    }
    done = new_done;
    if (time_msec() - last_draw >= REDRAW_MSEC) {
        draw();
    }
}

void
progress_set_total(uint64_t new_total)
{
    total = new_total;
}

void
progress_end(void)
{
    if (!active) {
        return;
    }
    if (total) {
        done = total;
    }
    draw();
    fprintf(stderr, "\r%*s\r", drawn_length, "");
    fflush(stderr);
    drawn_length = 0;
    active = false;
}
