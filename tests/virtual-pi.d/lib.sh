# The guest's checks' words (tests/virtual-pi.d/checks.sh and disks.sh source it): one line per
# check, "ok -" or "not ok -" with what it printed; `failed` counts whether any was not.
# shellcheck shell=sh disable=SC2034 # failed is read by the scripts that source this
failed=0
ok() { echo "ok - $*"; }
bad() {
    echo "not ok - $1"
    shift
    [ $# -eq 0 ] || printf '%s\n' "$@" | tail -n 25 | sed 's/^/    /'
    failed=1
}
# check NAME COMMAND...: the command succeeds.
check() {
    name=$1
    shift
    if out=$("$@" 2>&1); then ok "$name"; else bad "$name (status $?)" "$out"; fi
}
# has NAME FILE PATTERN: FILE holds PATTERN (a basic regular expression).
has() {
    if grep -q "$3" "$2"; then ok "$1"; else bad "$1: no '$3' in $2" "$(cat "$2")"; fi
}
# left PATH: iomark left nothing behind in the card's filesystem at PATH.
left() {
    rest=$(find "$2" -mindepth 1 -maxdepth 1 ! -name lost+found)
    if [ -z "$rest" ]; then ok "$1"; else bad "$1: left behind" "$rest"; fi
}
