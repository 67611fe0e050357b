#!/usr/bin/env bash
# Replaces the vendored Swagger UI (Sources/Web/Reference/swagger-ui) with the release files
# that the PyPI package flask-swagger-ui ships in its `dist` folder:
#   bash scripts/vendor-swagger-ui.sh 5.34.0
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:?usage: vendor-swagger-ui.sh FLASK_SWAGGER_UI_VERSION}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip download --no-deps --quiet --dest "$work" "flask-swagger-ui==$version"
python3 -m zipfile -e "$work"/flask_swagger_ui-*.whl "$work/unpacked"
dist="$work/unpacked/flask_swagger_ui/dist"
target=Sources/Web/Reference/swagger-ui
rm -rf "$target" && mkdir -p "$target"
cp "$dist/swagger-ui-bundle.js" "$dist/swagger-ui.css" "$dist/LICENSE" "$dist/VERSION" "$dist/favicon-32x32.png" "$target/"
echo "vendored Swagger UI $(cat "$target/VERSION") into $target"
