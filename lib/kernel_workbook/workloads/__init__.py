"""Generators of the benchmarks' workloads (tiobench, aio-stress, autonumabench, ...).

A workload is plain data (arrays and sizes) that a model consumes; it never
draws random numbers itself unless given a numpy Generator.
"""
