"""Benchmarks: scripts that print figures and compare against a baseline in the same run."""
