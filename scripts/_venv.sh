# Sourced by scripts/test and scripts/play: create or reuse .venv and install the project into it.
# The install is skipped when pyproject.toml has not changed since the last one.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$root/.venv"
python=${PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
    echo "creating $venv" >&2
    "$python" -m venv "$venv" || { echo "error: could not create a virtual environment with $python" >&2; exit 1; }
fi
stamp="$venv/.sushigo-installed"
want=$(sha256sum "$root/pyproject.toml" | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || ! "$venv/bin/python" -c "import engine" 2>/dev/null; then
    echo "installing sushigo and its dev tools into $venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root[dev]" \
        || { echo "error: installing the project failed" >&2; exit 1; }
    echo "$want" > "$stamp"
fi
