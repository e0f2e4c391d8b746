# tests/workloads/: the workload driver and the allocator benchmark.
