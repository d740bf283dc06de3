"""A second process using the embedded store, driven line by line over stdin.

    python embedded_worker.py INDEX_DIR

Commands (one per line), each answered with one line on stdout:
``open`` opens the store (``ok``), ``upsert ID TEXT`` writes a chunk (``ok``),
``count`` prints the count, ``close`` closes (``ok``), ``exit`` exits without
closing (the exit handler must still stop the server if this was its last
user).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from ragloom import Chunk, Context

from ragloom_pgvector import PgvectorStore


def main() -> None:
    index_dir = Path(sys.argv[1])
    store = PgvectorStore()
    for line in sys.stdin:
        command, *args = line.split(maxsplit=2)
        if command == "open":
            store.open(Context(index_dir=index_dir, base_dir=index_dir, name="shared"))
            print("ok", flush=True)
        elif command == "upsert":
            cid, text = args
            chunk = Chunk(cid, f"doc-{cid}", text.strip(), 0, 0, len(text.strip()), cid, {})
            vector = np.ones((1, 16), dtype=np.float32)
            store.upsert([chunk], vector)
            print("ok", flush=True)
        elif command == "count":
            print(store.count(), flush=True)
        elif command == "close":
            store.close()
            print("ok", flush=True)
        elif command == "exit":
            print("ok", flush=True)
            return
    store.close()


if __name__ == "__main__":
    main()
