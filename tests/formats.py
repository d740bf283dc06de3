"""What the tests of the file formats share: writing a file, reading one
through the ``file`` loader (with the ``context`` fixture of conftest.py),
and the size an Office file's parsed parts unpack to."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from ragloom.builtin.loaders.file import FileLoader
from ragloom.builtin.loaders.parsers._office import MEDIA
from ragloom.components import Context
from ragloom.types import Document

from .test_loaders import write

__all__ = ["read", "unpacked_but_media", "write"]


def read(context: Context, path: Path) -> list[Document]:
    """The documents the ``file`` loader makes of ``path`` (none or one)."""
    loader = FileLoader(path=str(path))
    loader.open(context)
    return list(loader.load())


def unpacked_but_media(data: bytes) -> int:
    """What an Office file's parts but its pictures, video and fonts unpack to."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return sum(
            i.file_size for i in archive.infolist() if not i.filename.lower().endswith(MEDIA)
        )
