# Two commands for a newcomer: `make demo` and `make test`. Both bootstrap via `make install`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test bench fuzz lint clean mcp-npm

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

demo: install
	$(BIN)/python -m agentcli.cli.demo

test: install
	$(BIN)/python -m pytest -n 2 tests

# The reference MCP servers from npm that tests/real/test_mcp_*.py start (node is required).
MCP_NPM := $(VENV)/mcp-npm
mcp-npm: $(MCP_NPM)/.installed

$(MCP_NPM)/.installed:
	npm install --prefix $(MCP_NPM) --no-audit --no-fund --silent \
		@modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem
	@touch $@

test-real: mcp-npm

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
