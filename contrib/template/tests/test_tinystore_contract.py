"""TinyStore passes ragloom's store contract."""

import pytest
from ragloom.testing import DenseStoreContract
from ragloom_tinystore import TinyStore


class TestTinyStore(DenseStoreContract):
    @pytest.fixture
    def store_factory(self):
        # An unopened store; the suite opens it under `path` (its index_dir).
        return lambda path: TinyStore()


class TestTinyStoreWithPath(DenseStoreContract):
    @pytest.fixture
    def store_factory(self):
        # The same store with its `path` option set: data under path/data.
        return lambda path: TinyStore(path=str(path / "data"))
