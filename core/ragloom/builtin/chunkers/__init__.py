"""Built-in chunkers."""
