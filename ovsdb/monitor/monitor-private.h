/* ovsdb/monitor/monitor-private.h: what the monitor*.c files share.  Only
 * ovsdb/monitor/monitor.c, ovsdb/monitor/monitor-cond.c and
 * ovsdb/monitor/monitor-since.c include this header; everyone else uses
 * ovsdb/monitor/monitor.h, whose types stay opaque.
 *
 * It holds the bodies of a shape ('struct ovsdb_monitor' and its tables),
 * of the hub and of its history, and the helpers of monitor.c that the
 * other two files call (prefix monitor_). */
#ifndef OVSDB_MONITOR_PRIVATE_H
#define OVSDB_MONITOR_PRIVATE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "lib/hmap.h"
#include "lib/uuid.h"
#include "ovsdb/engine/condition.h"
#include "ovsdb/monitor/monitor.h"

struct ds;
struct monitor_index;
struct monitor_index_set;
struct ovsdb_row;
struct ovsdb_table;

/* History bounds: transactions, and the row versions they hold (a
 * modification's old and new are two; see ovsdb_row_hold()).  The versions
 * are at most a quarter as many as the database's rows (HISTORY_MIN_ROWS
 * for a small database; the newest transaction is kept whatever its
 * size), so the replaced versions it keeps cost at most about a quarter
 * of what the rows do (an eighth when the changes are modifications,
 * which hold two versions each).  A client that missed more than that
 * would get less from a catch-up than the memory costs every other
 * client: its own rows, resent, are seldom many more.  As with the
 * reference, the atoms the history holds are also at most as many as the
 * database's (which matters for a small database). */
#define HISTORY_MAX_TXNS 100
#define HISTORY_MAX_ROWS 200000
#define HISTORY_MIN_ROWS 20000

/* "select" flags: the kinds of change a request asks for. */
enum {
    SEL_INITIAL = 1 << 0,
    SEL_INSERT = 1 << 1,
    SEL_DELETE = 1 << 2,
    SEL_MODIFY = 1 << 3,
    SEL_ALL = SEL_INITIAL | SEL_INSERT | SEL_DELETE | SEL_MODIFY
};

/* What a shape shows of one table.  An array of requests for one table may
 * give each column its own "select" (as the reference does): a column shows
 * only in the kinds of change its own request selected, and the table's
 * flags are their union. */
struct monitor_table {
    const struct ovsdb_table *table;
    const struct ovsdb_column **columns; /* Monitored columns, in order. */
    unsigned int *column_select;         /* SEL_* of each of 'columns'. */
    size_t n_columns;
    unsigned long *column_map;  /* Bitmap of monitored column indexes. */
    bool initial, insert, delete, modify;   /* Union of the requests'. */
    struct ovsdb_condition cond;            /* Empty: every row. */

    /* For each clause of 'cond', the index of its column if it is
     * [column, "==", value], else NULL.  'indexed' if every clause is such
     * a clause or "false": then the rows 'cond' shows are found through
     * the indexes. */
    struct monitor_index **clause_index;
    bool indexed;
};

struct subscriber {
    ovsdb_monitor_update_cb *cb;
    void *aux;
};

struct ovsdb_monitor {
    struct hmap_node node;      /* In hub's 'monitors', by hash of 'key'. */
    struct ovsdb_monitor_hub *hub;
    char *key;                  /* Version + sorted requests: the shape. */
    enum ovsdb_monitor_version version;
    json_t *requests;           /* As parsed (for monitor_cond_change). */
    struct monitor_table **tables;  /* By table index; NULL: unmonitored. */
    size_t n_tables;
    unsigned int n_refs;
    struct subscriber *subs;
    size_t n_subs, allocated_subs;

    /* Commits: if 'all_indexed' (every table's condition is indexed), the
     * indexes report the changes this shape can see, as indexes into the
     * commit's changes, in 'pending' (valid if 'stamp' is the hub's
     * 'commit_serial'). */
    bool all_indexed;
    unsigned long long stamp;
    size_t *pending;
    size_t n_pending, allocated_pending;

    /* The serialized initial contents, while some client still has them
     * queued (a weak pointer: NULL once the last holder is done), valid
     * if 'initial_stamp' is the hub's 'commit_serial'. */
    struct refbuf *initial_text;
    unsigned long long initial_stamp;
};

/* One row change kept in the history: the committed versions, held. */
struct history_change {
    const struct ovsdb_table *table;
    struct ovsdb_row *old, *new;    /* NULL for insert / delete. */
};

struct history_txn {
    struct uuid id;
    unsigned long long serial;  /* Increases by 1 per recorded txn. */
    struct history_change *changes;
    size_t n_changes, allocated;
    size_t n_versions; /* Row versions held in 'changes'. */
    size_t n_atoms;    /* Their atoms (ovsdb_row_n_atoms()). */
};

struct ovsdb_monitor_hub {
    struct ovsdb *db;
    struct hmap monitors;       /* Contains "struct ovsdb_monitor"s. */
    struct uuid last_txn_id;
    bool history_on;
    struct uuid history_base;   /* Txn just before the oldest in history. */
    struct history_txn history[HISTORY_MAX_TXNS];   /* A ring. */
    size_t history_start, history_n, history_versions;
    size_t history_atoms; /* Sum of the history's 'n_atoms'. */
    size_t db_atoms;      /* The database's committed atoms, kept up
                           * to date by every commit. */
    unsigned long long next_serial;
    struct monitor_index_set *indexes;  /* Of the shapes' conditions. */
    unsigned long long commit_serial;   /* Commits seen. */
};

/* Helpers in monitor.c. */

/* Parses 'requests' into the hub's shape for 'version' (a shared one if it
 * exists), allowing "where" if 'allow_where'.  The shape in '*mp' is a new
 * reference. */
struct ovsdb_error *monitor_hub_get(struct ovsdb_monitor_hub *,
                                    const json_t *requests,
                                    enum ovsdb_monitor_version,
                                    bool allow_where,
                                    struct ovsdb_monitor **mp);

/* True if 'row' satisfies 'mt''s condition (an empty one: every row). */
bool monitor_row_matches(const struct monitor_table *,
                         const struct ovsdb_row *);

/* Row update composition, as text; see monitor.c. */
void monitor_put_member_name(struct ds *, const char *name);
void monitor_put_uuid_member(struct ds *, const struct uuid *);
void monitor_put_row_text(struct ds *, const struct monitor_table *,
                          const size_t *order, const struct ovsdb_row *,
                          unsigned int sel, bool skip_default);

/* A <table-updates> text being built from changes in any order: one buffer
 * of "uuid":<row-update> members per table, joined at the end.  Commits,
 * a lagging client's merged pending set and a monitor_cond_since catch-up
 * are all written this way.  (Built as trees, the merged updates of Queue
 * with RFC monitors, 512 rows of 256-pair maps and 5 MB of text each,
 * raised the server's peak RSS by about 40 MB; RESULTS.md.) */
struct text_updates {
    struct ds *tables; /* By table index. */
    size_t n_tables;
    size_t n_rows; /* Row updates added. */
};

void monitor_text_updates_init(struct text_updates *,
                               const struct ovsdb_monitor *);
/* Adds the row update that 'm' shows for 'old' -> 'new' in 'mt''s table,
 * if any.  'changed' may be NULL: then columns are compared. */
void monitor_text_updates_add(struct text_updates *,
                              const struct ovsdb_monitor *m,
                              const struct monitor_table *mt,
                              const struct ovsdb_row *old,
                              const struct ovsdb_row *new,
                              const unsigned long *changed);
/* Moves the text into 'out' (which must be empty) and frees the rest. */
void monitor_text_updates_finish(struct text_updates *,
                                 const struct ovsdb_monitor *, struct ds *out);

#endif /* ovsdb/monitor/monitor-private.h */
