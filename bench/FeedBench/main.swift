// In-process benchmarks (cold renders and encodes); filled in by the benchmark work.
print("feed-bench: not yet implemented")
