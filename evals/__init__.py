"""Evaluations: datasets, system adapters, judge, metrics, report (graphmem.evals)."""
