"""Built-in embedders."""
