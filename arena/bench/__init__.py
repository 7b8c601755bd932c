"""Benchmarks and experiment runners, each measured side by side with a baseline in one run."""
