# Two commands for a newcomer: `make demo` and `make test`. Both bootstrap via `make install`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install sandbox demo test bench fuzz lint clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

demo: install
	$(BIN)/python -m agentcli.cli.demo

# The shell sandbox is bubblewrap. Installed here when missing and we may (root with apt-get);
# otherwise the sandbox tests fail and say why (they are never skipped).
sandbox:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get install -y -qq bubblewrap >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq bubblewrap; }; \
	  else \
	    echo "make: bubblewrap (bwrap) is missing and cannot be installed here; install it (e.g. sudo apt-get install bubblewrap) or the sandbox tests will fail" >&2; \
	  fi; }

test: install sandbox
	$(BIN)/python -m pytest -n 2 tests

bench: install
	$(BIN)/python benchmarks/run.py

fuzz: install
	AGENTCLI_FUZZ_EXAMPLES=50000 AGENTCLI_FULL_CORPUS=1 $(BIN)/python -m pytest tests -m slow -k "fuzz or scale or sigkill" -s

LINT_STAMP := $(VENV)/.lint-installed

$(LINT_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,lint]'
	@touch $(LINT_STAMP)

# Import contracts (the layer table), ruff, and the type checker.
lint: $(LINT_STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check agentcli tests benchmarks
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info
