# Two commands for a newcomer: `make demo` and `make test`. Both bootstrap via `make install`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install sandbox valgrind demo test test-real capture-real bench bench-vllm fuzz lint clean mcp-npm

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
# $(call apt_need,COMMAND,PACKAGE,WHAT HAPPENS WITHOUT IT): the Debian package installed when the
# command is missing and we may (root with apt-get); otherwise a line on stderr says what follows.
apt_need = command -v $(1) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get install -y -qq $(2) >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq $(2); }; \
	  else \
	    echo "make: $(1) is missing and cannot be installed here (e.g. sudo apt-get install $(2)); $(3)" >&2; \
	  fi; }

sandbox:
	@$(call apt_need,bwrap,bubblewrap,the sandbox tests will fail)

test: install sandbox
	$(BIN)/python -m pytest -n 2 tests

# Real third-party servers on 127.0.0.1 (docs/real-servers.md). llama-cpp-python comes from the
# prebuilt wheel in ../shared/wheels when that folder exists, else it is built from source (slow);
# the LiteLLM proxy gets its own venv inside .venv because its pins clash with ours: the pinned
# version in .venv/litellm and the newest that installs in .venv/litellm-new (with prisma, which its
# auth error path imports: without it a request with no key is a 500, not a 401).
LLAMA_PIN := llama-cpp-python[server]==0.3.36
LITELLM_PIN := litellm[proxy]==1.80.0
WHEELS := $(wildcard ../shared/wheels)
REAL_STAMP := $(VENV)/.real-installed

$(REAL_STAMP): $(STAMP) Makefile
	$(BIN)/python -m pip install --quiet $(if $(WHEELS),--find-links $(WHEELS)) '$(LLAMA_PIN)' gguf tokenizers
	@test -x $(VENV)/litellm/bin/python || $(PY) -m venv $(VENV)/litellm
	$(VENV)/litellm/bin/python -m pip install --quiet '$(LITELLM_PIN)'
	@test -x $(VENV)/litellm-new/bin/python || $(PY) -m venv $(VENV)/litellm-new
	$(VENV)/litellm-new/bin/python -m pip install --quiet --upgrade 'litellm[proxy]' prisma
	@touch $(REAL_STAMP)

# The reference MCP servers from npm that tests/real/test_mcp_*.py start (node is required).
MCP_NPM := $(VENV)/mcp-npm
mcp-npm: $(MCP_NPM)/.installed

$(MCP_NPM)/.installed:
	npm install --prefix $(MCP_NPM) --no-audit --no-fund --silent \
		@modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem
	@touch $@

test-real: $(REAL_STAMP) mcp-npm
	AGENTCLI_REAL=1 $(BIN)/python -m pytest tests/real

capture-real: $(REAL_STAMP)
	AGENTCLI_REAL=1 AGENTCLI_CAPTURE=1 $(BIN)/python -m pytest tests/real/test_capture.py

# vLLM's tool parsers, the parse benchmark's comparison (benchmarks/parse_sizes.py), in their own venv
# inside .venv: vLLM pins torch and much else. Only the CPU is used. Large (torch comes with its CUDA
# libraries from PyPI); `make bench VLLM=0` skips it, and when it cannot install the bench says so and
# judges against json.loads alone.
VLLM ?= 1
VLLM_PIN := vllm==0.33.0
VLLM_STAMP := $(VENV)/vllm/.installed

bench-vllm: $(VLLM_STAMP)

$(VLLM_STAMP):
	@test -x $(VENV)/vllm/bin/python || $(PY) -m venv $(VENV)/vllm
	$(VENV)/vllm/bin/python -m pip install --quiet '$(VLLM_PIN)'
	@touch $@

# make bench counts each command's instructions under valgrind (deterministic, where CPU time on a
# shared machine is not); installed here when missing and we may, else the bench judges by CPU time.
valgrind:
	@$(call apt_need,valgrind,valgrind,the cold-start bench judges by CPU time alone)

bench: install valgrind
	@if [ "$(VLLM)" = 1 ]; then $(MAKE) --no-print-directory bench-vllm || \
	  echo "make: vLLM did not install; the parse bench compares against json.loads alone" >&2; fi
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
