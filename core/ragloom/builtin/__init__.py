"""Built-in components. They register through the same public hooks as any
third-party plugin (see ``plugin.py``); nothing in core reaches them any other way."""
