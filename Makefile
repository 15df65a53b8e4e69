PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt torch==2.13.0
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/digits_softmax.py
	$(BIN)/python examples/keras_digits_cnn.py

lint: $(STAMP)
	$(BIN)/ruff check torchflow tests tools benchmarks examples
	$(BIN)/pyright  # _src/core and _src/ops, basic mode: [tool.pyright] in pyproject.toml

test: lint
	$(BIN)/python tools/check_size.py
	TF_USE_LEGACY_KERAS=1 $(BIN)/python -m pytest -q -n 2 -p no:cacheprovider tests

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do TF_USE_LEGACY_KERAS=1 $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV)
