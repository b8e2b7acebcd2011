# CSR Warehouse. Every target bootstraps .venv from pyproject.toml + requirements.lock on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export DO_NOT_TRACK := 1
CSRWH_DATA_DIR ?= data/raw

.PHONY: setup demo build fetch test test-fast docs bench clean

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c requirements.lock -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP) ## create .venv with the pinned dependencies

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

test: $(STAMP) ## run the whole test suite (unit + integration on ../shared/corpora)
	$(BIN)/python -m pytest -n 2 -q

docs: $(STAMP) ## generate dbt docs (lineage) into target/
	CSRWH_DBT_PATH=warehouse/demo.duckdb $(BIN)/dbt docs generate --profiles-dir profiles

bench: $(STAMP) ## print ingest and build benchmarks
	$(BIN)/python benchmarks/ingest.py

clean:
	rm -rf target logs data/sample warehouse/demo.duckdb*
