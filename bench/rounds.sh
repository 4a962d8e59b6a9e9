# Sourced by the benchmarks that compare builds or servers in rounds.
# shellcheck shell=bash

# The targets in the order round $1 measures them: as given in odd rounds,
# reversed in even ones (A B, B A, ...), so that neither always runs first,
# when the machine is warmest or coolest.
round_order() {
    local r=$1 reversed=()
    shift
    if ((r % 2)); then
        echo "$@"
        return
    fi
    while (($#)); do
        reversed=("$1" "${reversed[@]}")
        shift
    done
    echo "${reversed[@]}"
}
