"""Evaluation: identity on real video, synthetic worlds with ground truth, public benchmarks (EVAL.md)."""
