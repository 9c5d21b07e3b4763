# Sourced by scripts/test and scripts/play: create or reuse .venv and install the project into it.
# The install is skipped when pyproject.toml has not changed since the last one.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$root/.venv"

# The interpreters to build .venv from, best first: $PYTHON alone when it is set; otherwise every
# Python 3.11 or newer among python3 on PATH and the system's own, those with libpython linked into
# the executable first. A build that loads libpython as a shared library (the --enable-shared
# source builds of pyenv and the like, unless also built with --enable-optimizations) runs this
# project's engine about 20% slower than a distribution's build of the same version: see "Which
# Python" in docs/ARCHITECTURE.md.
python_candidates() {
    if [ -n "${PYTHON:-}" ]; then
        echo "$PYTHON"
        return
    fi
    local static="" shared="" cand exe
    for cand in python3 python3.11 python3.12 python3.13 /usr/bin/python3 /usr/local/bin/python3; do
        exe=$("$cand" -c 'import sys; sys.version_info >= (3, 11) and print(sys.executable)' 2>/dev/null) \
            || continue
        [ -n "$exe" ] || continue
        exe=$(readlink -f "$exe")
        case " $static $shared " in *" $exe "*) continue ;; esac
        if ldd "$exe" 2>/dev/null | grep -q libpython; then
            shared="$shared $exe"
        else
            static="$static $exe"
        fi
    done
    # shellcheck disable=SC2086  # one path per word
    printf '%s\n' $static $shared
}

if [ ! -x "$venv/bin/python" ]; then
    made=""
    while read -r python; do
        [ -n "$python" ] || continue
        echo "creating $venv with $python" >&2
        if "$python" -m venv "$venv"; then
            made=$python
            break
        fi
        rm -rf "$venv"
    done < <(python_candidates)
    if [ -z "$made" ] && [ -n "${PYTHON:-}" ]; then
        echo "error: could not create a virtual environment with PYTHON=$PYTHON" >&2
        exit 1
    elif [ -z "$made" ]; then
        echo "error: could not create a virtual environment: no Python 3.11 or newer with its" \
            "venv module was found (set PYTHON to choose one)" >&2
        exit 1
    fi
fi
stamp="$venv/.sushigo-installed"
want=$(sha256sum "$root/pyproject.toml" | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || ! "$venv/bin/python" -c "import sushigo.engine" 2>/dev/null; then
    echo "installing sushigo and its dev tools into $venv (a minute or two the first time)" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
    # pip's and setuptools' chatter (the editable build's warnings fill a screen) goes to a log,
    # shown only when the install fails.
    log="$venv/install.log"
    if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root[dev]" \
        >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        echo "error: installing the project failed (the whole output: $log)" >&2
        exit 1
    fi
    echo "$want" > "$stamp"
fi
# Byte-compile the project's sources (only those changed since): an editable install leaves that
# to the first import, and where PYTHONDONTWRITEBYTECODE is set (as in some CI and containers)
# every command would compile them again, about 15 ms of each start-up (docs/BOTS.md).
"$venv/bin/python" -m compileall -q "$root/engine" "$root/protocol" "$root/bots" "$root/server" \
    "$root/client" >/dev/null 2>&1 || true
