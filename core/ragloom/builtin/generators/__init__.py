"""Built-in generators."""
