#!/usr/bin/env bash
# Installs, from Debian's packages, the tools the tests read our output back with or watch our
# processes with, when they are missing (CONTRIBUTING.md#tests). Safe to run again: it installs
# only what is absent, and prints one `ensure-test-tools:` line per package it installed.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }

missing=()
have strace || missing+=(strace)
have python3 || missing+=(python3)
have script || missing+=(bsdutils)
# The README's HTTP walk-through, which test/e2e/readme/ runs, uses curl and jq.
have curl || missing+=(curl)
have jq || missing+=(jq)
# The deploy files (deploy/) are checked with Debian's own tools by test/e2e/deploy/: nginx -t and
# nginx itself, promtool check rules, systemd-analyze verify, and openssl for a test certificate.
have nginx || [ -x /usr/sbin/nginx ] || missing+=(nginx)
have promtool || missing+=(prometheus)
have systemd-analyze || missing+=(systemd)
have openssl || missing+=(openssl)
# Exports (docs/export.md) are read back by other people's readers: pandas (Debian's
# python3, not a pyenv one, hence the full path) for Stata, CSV and Excel (Parquet: DuckDB, an npm devDependency), PSPP for SPSS.
{ [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import pandas' >/dev/null 2>&1; } || missing+=(python3-pandas)
have pspp-convert || missing+=(pspp)
# Excel workbooks are read back by pandas through openpyxl.
{ [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import openpyxl' >/dev/null 2>&1; } || missing+=(python3-openpyxl)
# Stata and SPSS files are also read by R's haven (where most survey analysts work); jsonlite
# hands what it read to the test. Without R's recommended packages: hundreds the tests never use.
missing_r=()
if have Rscript; then
  Rscript -e 'library(haven)' >/dev/null 2>&1 || missing_r+=(r-cran-haven)
  Rscript -e 'library(jsonlite)' >/dev/null 2>&1 || missing_r+=(r-cran-jsonlite)
else
  missing_r+=(r-base-core r-cran-haven r-cran-jsonlite)
fi
# GeoJSON exports are read back by GDAL's ogrinfo (test/helpers/read-geojson.ts).
have ogrinfo || missing+=(gdal-bin)

if [ $((${#missing[@]} + ${#missing_r[@]})) -gt 0 ]; then
  as_root apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  for p in "${missing[@]}"; do echo "ensure-test-tools: installed $p"; done
fi
if [ ${#missing_r[@]} -gt 0 ]; then
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing_r[@]}" >/dev/null
  for p in "${missing_r[@]}"; do echo "ensure-test-tools: installed $p"; done
fi
