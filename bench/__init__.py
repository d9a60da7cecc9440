"""Benchmarks: scripts that print figures (see README.md), not tests."""
