// Placeholder replaced by the scheduling benchmark.
print("scheduling-bench")
