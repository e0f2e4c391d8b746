/* ovsdb/server/metrics.h: the server's Prometheus metrics, served over
 * HTTP ("--metrics=ptcp:PORT[:IP]", "metrics/set-remote").
 *
 * A scrape ("GET /metrics") reads the figures the server already keeps:
 * counters that modules bump as they work (transactions, bytes, flow
 * control, Raft leader changes), gauges read from the objects as they are
 * (sessions, monitors, rows, Raft indexes), and two histograms (the
 * passes of the loop, and batch writes).  Nothing walks rows: a scrape
 * costs a loop over databases, tables and sessions, never over data.  The
 * names and their meaning are documented in ovsdb-server(1), METRICS.
 *
 * The HTTP side is lib/http-server, run from the server's loop with the
 * rest: a slow scraper costs a socket buffer, not a pass. */
#ifndef OVSDB_SERVER_METRICS_H
#define OVSDB_SERVER_METRICS_H 1

struct ds;
struct ovsdb_server;

struct ovsdb_metrics;

/* Starts collecting for 'srv' (borrowed: must outlive the metrics), with
 * no endpoint yet.  Caller must free with ovsdb_metrics_destroy(). */
struct ovsdb_metrics *ovsdb_metrics_create(struct ovsdb_server *srv);
void ovsdb_metrics_destroy(struct ovsdb_metrics *); /* NULL is fine. */

/* Serves the metrics on 'remote' ("ptcp:PORT[:IP]"), or on nothing if it
 * is NULL or "".  Returns 0, or an errno (EINVAL for a name that is not a
 * passive TCP one); then the previous endpoint is kept. */
int ovsdb_metrics_set_remote(struct ovsdb_metrics *, const char *remote);

/* Appends the endpoint ("ptcp:PORT:IP", with the port bound) or nothing,
 * then a newline. */
void ovsdb_metrics_put_remote(const struct ovsdb_metrics *, struct ds *);

/* Appends the exposition text of every metric. */
void ovsdb_metrics_put(const struct ovsdb_metrics *, struct ds *);

void ovsdb_metrics_run(struct ovsdb_metrics *);
void ovsdb_metrics_wait(struct ovsdb_metrics *);

#endif /* ovsdb/server/metrics.h */
