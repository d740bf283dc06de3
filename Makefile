# The README's two commands: `make demo` and `make test`. Both create .venv on
# first use; nothing is installed or cached outside this folder.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DEMO   := examples/quickstart
RAGLOOM := ../../$(BIN)/ragloom
PLUGINS := plugins/sentence-transformers plugins/cohere plugins/pinecone

# Caches (embeddings, any model hub) stay inside the checkout.
export RAGLOOM_CACHE_DIR := $(CURDIR)/.cache/ragloom
export HF_HOME := $(CURDIR)/.cache/huggingface
export HF_HUB_OFFLINE := 1

.PHONY: venv demo test bench lint docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# torch first, pinned: 2.13.0 is the CPU build; left to a resolver,
# sentence-transformers would pull a multi-GB CUDA build.
$(VENV)/.installed: pyproject.toml $(PLUGINS:%=%/pyproject.toml) | $(BIN)/python
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[dev,docs,pdf]' $(PLUGINS:%=-e %[test])
	touch $@

venv: $(VENV)/.installed

# The demo starts from an empty index each time (the embedding cache makes
# that cheap), so an index left by an older default never gets in its way.
demo: venv
	rm -rf $(DEMO)/.ragloom
	cd $(DEMO) && $(RAGLOOM) config check
	cd $(DEMO) && $(RAGLOOM) index
	cd $(DEMO) && $(RAGLOOM) ask "How much does the Team plan cost?"
	cd $(DEMO) && $(RAGLOOM) ask "How long are memories kept on the Free plan?"
	cd $(DEMO) && $(RAGLOOM) ask "Can I export my notes?"
	cd $(DEMO) && $(RAGLOOM) ask "Who is the CEO of Notewise?"

test: venv
	$(BIN)/ruff check core tests benchmarks plugins contrib
	$(BIN)/mkdocs build --strict --quiet -d .venv/site
	$(BIN)/python -m pytest -q -m "not integration" tests $(PLUGINS:%=%/tests) contrib/template/tests

bench: venv
	$(BIN)/python benchmarks/run.py

lint: venv
	$(BIN)/ruff check core tests benchmarks

docs: venv
	$(BIN)/mkdocs build --strict -d site

clean:
	rm -rf $(VENV) .cache $(DEMO)/.ragloom site .pytest_cache
