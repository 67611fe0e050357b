// Auth
