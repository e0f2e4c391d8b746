# tests/: unit tests (C programs), end-to-end tests (shell scripts), data.
#
# "make check" builds check_PROGRAMS, then tests/run runs every unit test and
# every tests/*/*.sh script, each in its own process, and ends with
# "N passed, M failed".
EXTRA_DIST += tests/run tests/unit/check.h tests/e2e/lib.sh
TEST_LDADD = $(PROGRAM_LIBS)

# lib unit tests.
check_PROGRAMS += tests/unit/test-allocator tests/unit/test-hmap \
	tests/unit/test-uuid tests/unit/test-ds
tests_unit_test_allocator_LDADD = $(TEST_LDADD)
tests_unit_test_hmap_LDADD = $(TEST_LDADD)
tests_unit_test_uuid_LDADD = $(TEST_LDADD)
tests_unit_test_ds_LDADD = $(TEST_LDADD)
# (net) lib unit tests go below.
check_PROGRAMS += tests/unit/test-unixctl tests/unit/test-jsonrpc \
	tests/unit/test-stream tests/unit/test-poll-loop \
	tests/unit/test-vlog tests/unit/test-reconnect
tests_unit_test_unixctl_LDADD = $(TEST_LDADD)
tests_unit_test_jsonrpc_LDADD = $(TEST_LDADD)
tests_unit_test_stream_LDADD = $(TEST_LDADD)
tests_unit_test_poll_loop_LDADD = $(TEST_LDADD)
tests_unit_test_vlog_LDADD = $(TEST_LDADD)
tests_unit_test_reconnect_LDADD = $(TEST_LDADD)
EXTRA_DIST += tests/e2e/unixctl-appctl.sh

# (engine) ovsdb unit tests go below.
noinst_PROGRAMS += tests/ovsdb-exec
tests_ovsdb_exec_SOURCES = tests/ovsdb-exec.c
tests_ovsdb_exec_LDADD = $(TEST_LDADD)
check_PROGRAMS += tests/unit/test-error tests/unit/test-json-util \
	tests/unit/test-schema tests/unit/test-datum tests/unit/test-txn \
	tests/unit/test-condition tests/unit/test-mutation
tests_unit_test_condition_LDADD = $(TEST_LDADD)
tests_unit_test_mutation_LDADD = $(TEST_LDADD)
tests_unit_test_error_LDADD = $(TEST_LDADD)
tests_unit_test_json_util_LDADD = $(TEST_LDADD)
tests_unit_test_schema_LDADD = $(TEST_LDADD)
tests_unit_test_datum_LDADD = $(TEST_LDADD)
tests_unit_test_txn_LDADD = $(TEST_LDADD)
EXTRA_DIST += tests/engine/exec-corpus.sh tests/engine/exec-tool \
	tests/engine/get-schema.sh tests/engine/differential-fuzz.sh \
	tests/engine/fuzz.py

# (storage) unit tests go below.
check_PROGRAMS += tests/unit/test-log tests/unit/test-storage
tests_unit_test_log_LDADD = $(TEST_LDADD)
tests_unit_test_storage_LDADD = $(TEST_LDADD)
EXTRA_DIST += tests/storage/lib.sh tests/storage/test.ovsschema \
	tests/storage/test2.ovsschema tests/storage/tool-reports.sh \
	tests/storage/cross-read.sh tests/storage/compact.sh \
	tests/storage/convert.sh tests/storage/corrupt.sh \
	tests/storage/ref-server-file.sh tests/storage/server-durability.sh \
	tests/storage/old-format.sh tests/storage/lock-interop.sh


# (server) tests go below.
check_PROGRAMS += tests/unit/test-lock tests/unit/test-monitor
tests_unit_test_lock_LDADD = $(TEST_LDADD)
tests_unit_test_monitor_LDADD = $(TEST_LDADD)
check_PROGRAMS += tests/unit/test-monitor-pending
tests_unit_test_monitor_pending_LDADD = $(TEST_LDADD)
EXTRA_DIST += tests/server/rpc.py tests/server/scenarios.py \
	tests/server/robust.py tests/server/multi.py tests/server/lib.sh \
	tests/server/appctl.sh tests/server/basic.sh tests/server/cli.sh \
	tests/server/clients.sh tests/server/locks.sh \
	tests/server/malformed.sh tests/server/monitor.sh \
	tests/server/multi.sh tests/server/probe.sh tests/server/serverdb.sh \
	tests/server/since.sh tests/server/slow-reader.sh tests/server/wait.sh \
	tests/server/convert.sh tests/server/db-remotes.sh \
	tests/server/db_remotes.py tests/server/backpressure.py \
	tests/server/backpressure-echo.sh \
	tests/server/backpressure-requests.sh \
	tests/server/backpressure-monitor.sh

# (client) tests go below.
check_PROGRAMS += tests/unit/test-table-format
tests_unit_test_table_format_LDADD = $(TEST_LDADD)
EXTRA_DIST += tests/client/lib.sh tests/client/commands.sh \
	tests/client/monitor.sh tests/client/lock.sh \
	tests/client/ref-server.sh tests/client/backup.sh \
	tests/client/remotes.sh

# (security) TLS, RBAC and remotes tests go below.
check_PROGRAMS += tests/security/ssl-tool tests/unit/test-rbac \
	tests/unit/test-remotes
tests_security_ssl_tool_LDADD = $(TEST_LDADD)
tests_unit_test_rbac_LDADD = $(TEST_LDADD)
tests_unit_test_remotes_LDADD = $(TEST_LDADD)
EXTRA_DIST += tests/data/schemas/rbac.ovsschema tests/security/pki.shlib tests/security/ssl-streams.sh \
	tests/security/ssl-interop.sh tests/security/hygiene.sh \
	tests/security/rbac-remotes.sh tests/security/db-remote-errors.sh

check-local: $(check_PROGRAMS) $(bin_PROGRAMS) $(noinst_PROGRAMS)
	OVSDB_SRCDIR=$(abs_top_srcdir) OVSDB_BUILDDIR=$(abs_top_builddir) \
	  $(SHELL) $(top_srcdir)/tests/run $(TESTS_PATTERN)
