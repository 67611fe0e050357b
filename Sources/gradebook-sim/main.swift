print("gradebook-sim")
