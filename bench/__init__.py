"""Benchmarks printed by `make bench`; figures, not pass/fail tests."""
