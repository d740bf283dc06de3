"""Built-in query transformers (condense, multi-query, HyDE), on the
pipeline's chat-model generator."""
