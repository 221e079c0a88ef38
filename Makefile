# `make audit` and `make test` set everything up on a fresh machine:
# a virtualenv with the package, and Coq from the distribution when it is missing.
PY    ?= python3
VENV  ?= .venv
BIN   := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: audit audit-quick test bench coq-tools chromium-tools report-screenshot proofs clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test,report]'
	touch $(STAMP)

# Coq, Coquelicot (real analysis for the activations) and mathcomp-analysis (Lebesgue
# measure for proofs/coq/NullSets.v) are system packages; install them when we are root,
# otherwise say what to run. Quiet when present.
coq-tools:
	@if ! command -v coqc >/dev/null 2>&1 || \
	    ! test -d "$$(coqc -where 2>/dev/null)/user-contrib/Coquelicot" || \
	    ! test -d "$$(coqc -where 2>/dev/null)/user-contrib/mathcomp/analysis"; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Coq, Coquelicot and mathcomp-analysis from the distribution's packages (apt-get install -y coq libcoq-coquelicot libcoq-mathcomp-analysis)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq coq libcoq-coquelicot libcoq-mathcomp-analysis >/dev/null; \
	  else \
	    echo "Coq, Coquelicot or mathcomp-analysis is missing: run 'sudo apt-get install -y coq libcoq-coquelicot libcoq-mathcomp-analysis' (until then the audit cannot compile the Coq proofs)"; \
	  fi; \
	fi

# Chromium renders the HTML report in the tests (headless); a system package like Coq.
chromium-tools:
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Chromium from the distribution's packages (apt-get install -y chromium)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "Chromium is not installed: run 'sudo apt-get install -y chromium' (the report's browser test fails until then)"; \
	  fi; \
	fi

proofs: coq-tools
	$(MAKE) -C proofs/coq

audit: $(STAMP) coq-tools
	$(BIN)/absorb audit

audit-quick: $(STAMP) coq-tools
	$(BIN)/absorb audit --quick

test: $(STAMP) coq-tools chromium-tools
	$(BIN)/python -m pytest

# The README's screenshot: the full audit's HTML report, rendered by headless Chromium.
report-screenshot: $(STAMP) coq-tools chromium-tools
	mkdir -p reports
	-$(BIN)/absorb audit --report reports/audit.html
	$(BIN)/python -m oracle.report.browser reports/audit.html --screenshot docs/audit-report.png

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
	-$(MAKE) -C proofs/coq clean
