"""Built-in loaders; the format parsers they share live in ``parsers/``."""
