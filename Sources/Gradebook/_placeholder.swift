// Gradebook
