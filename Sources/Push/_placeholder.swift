// Push
