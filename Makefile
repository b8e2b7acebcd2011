# CSR Warehouse. Every target bootstraps .venv from pyproject.toml + requirements.lock on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export DO_NOT_TRACK := 1
CSRWH_DATA_DIR ?= data/raw

.PHONY: setup setup-spark java demo build fetch lint test test-fast browser-deps docs bench faults clean

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c requirements.lock -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP) ## create .venv with the pinned dependencies

# The optional Spark engine (csrwh build --engine spark): dbt-spark[session] + pyspark (~630 MB in
# the venv), pinned like the rest; Java 17 through `make java`. The default install stays light.
SPARK_STAMP := $(VENV)/.spark-stamp
$(SPARK_STAMP): $(STAMP) pyproject.toml requirements.lock
	$(BIN)/python -m pip install --quiet -c requirements.lock -e ".[dev,spark]"
	touch $(SPARK_STAMP)

setup-spark: $(SPARK_STAMP) java ## add the Spark engine (pyspark, dbt-spark; Java 17 if missing)

# Debian's openjdk-17-jre-headless, only when no `java` is on PATH; installed with apt when root
# or passwordless sudo is available (like browser-deps), otherwise one line says what to install.
JAVA_PKG ?= openjdk-17-jre-headless
JAVA_CMD ?= java
java: ## install a Java runtime for Spark when `java` is missing
	@command -v $(JAVA_CMD) >/dev/null 2>&1 && exit 0; \
	if [ "$$(id -u)" -eq 0 ]; then sudo=""; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	else echo "the Spark engine needs Java 17 (apt-get install -y $(JAVA_PKG)); not root and no passwordless sudo, so not installed"; exit 0; fi; \
	if ! command -v $(APT_GET) >/dev/null 2>&1; then echo "the Spark engine needs Java 17; no apt-get here, install it yourself"; exit 0; fi; \
	echo "installing for the Spark engine: $(JAVA_PKG)"; \
	$$sudo env DEBIAN_FRONTEND=noninteractive $(APT_GET) update -qq && \
	$$sudo env DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y -qq --no-install-recommends $(JAVA_PKG) >/dev/null \
	|| echo "warning: could not install $(JAVA_PKG); the Spark tests will skip (or fail under CI=true)"

demo: $(STAMP) ## generate the sample corpora and build warehouse/demo.duckdb
	$(BIN)/csrwh sample --out data/sample
	$(BIN)/csrwh build --data-dir data/sample --warehouse warehouse/demo.duckdb
	$(BIN)/csrwh report --warehouse warehouse/demo.duckdb --out reports/demo
	@echo ""
	@echo "Demo warehouse: $(CURDIR)/warehouse/demo.duckdb"
	@echo "Query it:  $(BIN)/csrwh sql --warehouse warehouse/demo.duckdb \"select * from corpus_stats\""
	@echo "      or:  duckdb warehouse/demo.duckdb   (any DuckDB client, read-only while you build)"
	@echo "Report:    reports/demo/statistics.html"

build: $(STAMP) ## build warehouse/csr.duckdb from the real corpora in $CSRWH_DATA_DIR
	$(BIN)/csrwh build --data-dir $(CSRWH_DATA_DIR) --warehouse warehouse/csr.duckdb
	$(BIN)/csrwh report --warehouse warehouse/csr.duckdb --out reports

fetch: $(STAMP) ## download the corpora into $CSRWH_DATA_DIR
	$(BIN)/csrwh fetch --data-dir $(CSRWH_DATA_DIR)

lint: $(STAMP) ## ruff (lint + format) on Python, import-linter contracts (pyproject.toml), sqlfluff (.sqlfluff) on models/ and macros/, no DuckDB-only SQL in models/, tests/dbt/, macros/
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/sqlfluff lint models macros --processes 2 --disable-progress-bar --nocolor
	$(BIN)/python scripts/check_engine_syntax.py
	$(BIN)/lint-imports --no-cache

test: $(STAMP) browser-deps setup-spark lint ## lint, then the whole test suite (unit + integration on ../shared/corpora)
	$(BIN)/python -m pytest -n 2 -q

test-fast: $(STAMP) ## the unit tests only (no dbt, no build, no browser; under 2 minutes): run before each commit
	$(BIN)/python -m pytest tests/unit -n 2 -q

# Debian's Chromium renders the statistics report and drives the dashboard's browser tests;
# fonts-wqy-microhei gives CJK glyphs in screenshots. Installed with apt when root or
# passwordless sudo is available; otherwise one line says what to install (those tests then
# skip, or fail under CI=true).
BROWSER_CMD ?= chromium
APT_GET ?= apt-get
browser-deps: ## install what the browser tests need (chromium, CJK fonts) when possible
	@need=""; \
	command -v $(BROWSER_CMD) >/dev/null 2>&1 || need="chromium"; \
	if command -v dpkg >/dev/null 2>&1 && ! dpkg -s fonts-wqy-microhei >/dev/null 2>&1; then need="$$need fonts-wqy-microhei"; fi; \
	if [ -z "$$need" ]; then exit 0; fi; \
	if [ "$$(id -u)" -eq 0 ]; then sudo=""; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	else echo "browser tests need: $$need (apt-get install -y $$need); not root and no passwordless sudo, so not installed"; exit 0; fi; \
	if ! command -v $(APT_GET) >/dev/null 2>&1; then echo "browser tests need: $$need; no apt-get here, install them yourself"; exit 0; fi; \
	echo "installing for the browser tests: $$need"; \
	$$sudo env DEBIAN_FRONTEND=noninteractive $(APT_GET) update -qq && \
	$$sudo env DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y -qq --no-install-recommends $$need >/dev/null \
	|| echo "warning: could not install $$need; the browser tests will skip (or fail under CI=true)"

# dbt docs of the warehouse WAREHOUSE (lineage, every model, column and test; the catalog
# - column types, table sizes - read from that file). dbt opens a database read-write, so it
# reads a copy: the published file and its readers are never touched. static_index.html has
# everything inlined (opens from disk, offline); index.html needs a local web server.
WAREHOUSE ?= warehouse/demo.duckdb
DOCS_DIR ?= target/docs
docs: $(STAMP) ## dbt docs of WAREHOUSE= (default warehouse/demo.duckdb) into $(DOCS_DIR)/
	@test -f "$(WAREHOUSE)" || { echo "no warehouse at $(WAREHOUSE): run make demo, or make docs WAREHOUSE=path/to/warehouse.duckdb"; exit 1; }
	@mkdir -p "$(DOCS_DIR)"
	@cp "$(WAREHOUSE)" "$(DOCS_DIR)/warehouse.duckdb"
	@echo "dbt docs generate for $(WAREHOUSE) into $(DOCS_DIR)/ (dbt's log: $(DOCS_DIR)/logs/dbt.log)"
	@CSRWH_DBT_PATH="$(DOCS_DIR)/warehouse.duckdb" $(BIN)/dbt --quiet --log-path "$(DOCS_DIR)/logs" docs generate \
		--static --profiles-dir profiles --target-path "$(DOCS_DIR)"; \
	status=$$?; rm -f "$(DOCS_DIR)/warehouse.duckdb" "$(DOCS_DIR)/warehouse.duckdb.wal"; exit $$status
	@echo ""
	@echo "Docs of $(WAREHOUSE): $(abspath $(DOCS_DIR))/"
	@echo "Open offline:  $(abspath $(DOCS_DIR))/static_index.html  (one self-contained file)"
	@echo "Serve:         $(BIN)/dbt docs serve --profiles-dir profiles --target-path $(DOCS_DIR) --port 8080"
	@echo "          or:  $(BIN)/python -m http.server 8080 --bind 127.0.0.1 --directory $(DOCS_DIR)   (then http://127.0.0.1:8080)"

bench: $(STAMP) ## print ingest and build benchmarks
	$(BIN)/python benchmarks/ingest.py

faults: $(STAMP) ## fault injection: signals and kills at each build phase, concurrent builds, damaged input, user commands
	$(BIN)/python benchmarks/faults.py

clean:
	rm -rf target logs data/sample warehouse/demo.duckdb*
