"""Format parsers: text (or bytes) in, document text and metadata out. Free of loader classes."""
