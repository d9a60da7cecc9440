# `make run` and `make test` work on a fresh machine with Python 3.11+ and make.
SHELL := /bin/bash
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
	&& { echo $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: venv run test test-services lint docs format check superuser fake-openrouter clean

$(STAMP):
	@test -n "$(PYTHON)" || { echo "Built-It needs Python 3.11 or newer (python3.11+ on PATH)."; exit 1; }
	@$(BIN)/python -m pip --version >/dev/null 2>&1 || { rm -rf $(VENV); $(PYTHON) -m venv $(VENV) || { \
		echo "Could not create a virtualenv with $(PYTHON). On Debian or Ubuntu: sudo apt-get install python3-venv"; \
		rm -rf $(VENV); exit 1; }; }
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[dev]"
	@rm -f $(VENV)/.installed-*
	@touch $@

# The virtualenv alone: CI makes it before starting the two suites side by side.
venv: $(STAMP)

run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	BUILTIT_HTTPS=$${BUILTIT_HTTPS:-0} BUILTIT_ALLOW_SIGNUP=$${BUILTIT_ALLOW_SIGNUP:-1} \
		$(BIN)/python manage.py runserver $(HOST):$(PORT)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The whole suite again on PostgreSQL and Redis (DATABASE_URL and REDIS_URL, or
# the local defaults): skipped with the reason when they are not running,
# a failure instead with BUILTIT_REQUIRE_SERVICES=1 (as in CI).
test-services: $(STAMP)
	@$(BIN)/python -m tests.services_ready; status=$$?; \
	if [ $$status -eq 3 ]; then exit 0; elif [ $$status -ne 0 ]; then exit $$status; fi; \
	DATABASE_URL=$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres} \
	REDIS_URL=$${REDIS_URL:-redis://127.0.0.1:6379/0} \
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .
	$(BIN)/lint-imports
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The guide (docs/, mkdocs.yml) as a site in build/docs; `make lint` builds it
# strictly, so a broken link or anchor fails there (not with --quiet: it hides
# the warnings that --strict counts).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

check: $(STAMP)
	$(BIN)/python manage.py check
	$(BIN)/python manage.py makemigrations --check --dry-run

# The offline demo model: OPENROUTER_BASE_URL=http://127.0.0.1:8765/api/v1 make run
fake-openrouter: $(STAMP)
	$(BIN)/python -m fakes.openrouter --host 127.0.0.1 --port $${FAKE_PORT:-8765}

superuser: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py createsuperuser

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build/docs
