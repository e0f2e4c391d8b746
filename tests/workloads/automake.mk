# tests/workloads/: the workload driver and the allocator benchmark.
noinst_PROGRAMS += tests/workloads/ovsdb-workload
tests_workloads_ovsdb_workload_SOURCES = \
	tests/workloads/ovsdb-workload.c \
	tests/workloads/wl-rpc.c tests/workloads/wl-rpc.h \
	tests/workloads/wl-workloads.c tests/workloads/wl-workloads.h \
	tests/workloads/wl-ovn.c
tests_workloads_ovsdb_workload_LDADD = $(PROGRAM_LIBS) $(OPENSSL_LIBS)

# The raw allocator micro-benchmark, on the allocator of this build.
noinst_PROGRAMS += tests/workloads/malloc-bench
tests_workloads_malloc_bench_SOURCES = tests/workloads/malloc-bench.c
tests_workloads_malloc_bench_LDADD = $(PROGRAM_LIBS)

# The driver's JSON-RPC client, against a scripted server.
check_PROGRAMS += tests/unit/workloads/test-wl-rpc
tests_unit_workloads_test_wl_rpc_SOURCES = tests/unit/workloads/test-wl-rpc.c \
	tests/workloads/wl-rpc.c tests/workloads/wl-rpc.h
tests_unit_workloads_test_wl_rpc_LDADD = $(TEST_LDADD) $(OPENSSL_LIBS)
EXTRA_DIST += tests/workloads/README.md tests/workloads/bench \
	tests/workloads/smoke.sh tests/workloads/workload.ovsschema \
	tests/workloads/bigdb.py tests/workloads/bigdb.sh tests/workloads/ovn.sh \
	tests/workloads/ovnbench.py tests/workloads/clusterbench.py \
	tests/workloads/malloc-bench.sh tests/workloads/allocbench.py

# "make bench" builds the three allocator variants out of tree under
# $(top_srcdir)/build/ and runs every workload on each; see
# tests/workloads/README.md.  BENCH_FLAGS passes options, e.g.
# make bench BENCH_FLAGS="--scale 0.1 --repeat 3 --vs /usr/sbin/ovsdb-server"
BENCH_FLAGS =
bench:
	$(top_srcdir)/tests/workloads/bench $(BENCH_FLAGS)
.PHONY: bench
