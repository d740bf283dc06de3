"""Built-in stores."""
