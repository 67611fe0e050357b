// Scheduling
