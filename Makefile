# `make audit` and `make test` set everything up on a fresh machine:
# a virtualenv with the package, and Coq from the distribution when it is missing.
PY    ?= python3
VENV  ?= .venv
BIN   := $(VENV)/bin
STAMP := $(VENV)/.installed
# pytest-xdist workers for make test and make test-fast (the machines have 2 cores). Whole test
# files go to one worker (pyproject's addopts, tests/conftest.py), the long ones first.
WORKERS ?= 2
XDIST   := -n $(WORKERS)

.PHONY: audit audit-quick test test-fast constraints bench mutation coq-tools chromium-tools report-screenshot proofs clean

# The tested versions: constraints.txt pins every direct and transitive dependency of
# .[test,report,coverage,mutation] (make constraints regenerates it).
$(STAMP): pyproject.toml constraints.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test,report]'
	touch $(STAMP)

# Resolve .[test,report,coverage,mutation] afresh in a scratch virtualenv and pin what it
# installed. Run the tests on the new pins (make test) before committing them.
constraints:
	rm -rf .venv-constraints
	$(PY) -m venv .venv-constraints
	.venv-constraints/bin/pip install --quiet --disable-pip-version-check -e '.[test,report,coverage,mutation]'
	{ echo "# The tested versions of every dependency of .[test,report,coverage,mutation] (Python $$(.venv-constraints/bin/python -c 'import platform; print(platform.python_version())'), Linux)."; \
	  echo "# make installs them (pip install -c constraints.txt); make constraints regenerates this file."; \
	  .venv-constraints/bin/pip freeze --exclude-editable --disable-pip-version-check; } > constraints.txt
	rm -rf .venv-constraints

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

# The whole suite (what .ci/run runs), on $(WORKERS) workers.
test: $(STAMP) coq-tools chromium-tools
	$(BIN)/python -m pytest $(XDIST)

# The fast subset while developing: everything but the tests marked slow (the compiled Coq
# attacks and the oracle-mutant audits), with 5 instances per claim in the tests' quick audits.
test-fast: $(STAMP) coq-tools chromium-tools
	ABSORB_TEST_INSTANCES=5 $(BIN)/python -m pytest $(XDIST) -m "not slow"

# The README's screenshot: the full audit's HTML report, rendered by headless Chromium.
report-screenshot: $(STAMP) coq-tools chromium-tools
	mkdir -p reports
	-$(BIN)/absorb audit --report reports/audit.html
	$(BIN)/python -m oracle.report.browser reports/audit.html --screenshot docs/audit-report.png

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# The mutation score of the quick audit, per claim (benchmarks/mutation.py, cosmic-ray): writes
# docs/mutation.md. Long (minutes per mutant batch, hours for every claim), so not in CI.
# CLAIMS="relu2-biased depth-d1" restricts it to those claims; MUTANTS caps the mutants run per
# claim (a uniform sample above it).
CLAIMS  ?=
MUTANTS ?= 40
MUTATION_STAMP := $(VENV)/.installed-mutation
$(MUTATION_STAMP): $(STAMP)
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test,report,mutation]'
	touch $(MUTATION_STAMP)

mutation: $(MUTATION_STAMP)
	nice $(BIN)/python benchmarks/mutation.py run $(if $(CLAIMS),--claims $(CLAIMS)) --max-mutants $(MUTANTS)

clean:
	rm -rf $(VENV) .venv-constraints .pytest_cache .hypothesis
	-$(MAKE) -C proofs/coq clean
