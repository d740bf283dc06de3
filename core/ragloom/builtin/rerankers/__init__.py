"""Built-in rerankers."""
