# The README's two commands: `make demo` and `make test`. Both create .venv on
# first use; nothing is installed outside this folder.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DEMO   := examples/quickstart
RAGLOOM := ../../$(BIN)/ragloom

.PHONY: venv demo test bench lint docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev,docs]'
	touch $@

venv: $(VENV)/.installed

demo: venv
	cd $(DEMO) && $(RAGLOOM) config check
	cd $(DEMO) && $(RAGLOOM) index
	cd $(DEMO) && $(RAGLOOM) ask "How much does the Team plan cost?"
	cd $(DEMO) && $(RAGLOOM) ask "How long are memories kept on the Free plan?"
	cd $(DEMO) && $(RAGLOOM) ask "Can I export my notes?"
	cd $(DEMO) && $(RAGLOOM) ask "Who is the CEO of Notewise?"

test: venv
	$(BIN)/ruff check core tests benchmarks
	$(BIN)/mkdocs build --strict --quiet -d .venv/site
	$(BIN)/python -m pytest -q

bench: venv
	$(BIN)/python benchmarks/run.py

lint: venv
	$(BIN)/ruff check core tests benchmarks

docs: venv
	$(BIN)/mkdocs build --strict -d site

clean:
	rm -rf $(VENV) $(DEMO)/.ragloom site .pytest_cache
