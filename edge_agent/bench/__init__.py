"""Benchmarks behind ``edge-agent bench``: figures with ratios against baselines measured in the same
run. Benchmarks print; tests assert behaviour, never timings."""
