# Sourced by the benchmark scripts that summarise their runs with jq
# (bench/server, bench/topics, bench/rust-sdk, bench/collections).

# The jq definition of `median` their summaries use: the middle value of an
# array of numbers, the mean of the two middle ones for an even count, null
# for none. Printed, to put before a jq program.
jq_median_def() {
    cat <<'JQ'
def median: sort | if length == 0 then null
                   elif length % 2 == 1 then .[length / 2 | floor]
                   else (.[length / 2 - 1] + .[length / 2]) / 2 end;
JQ
}

# The number formats of their tables: f0, f2 and f3 round to 0, 2 and 3
# decimals and print "-" for a missing value.
jq_format_defs() {
    cat <<'JQ'
def f2: if . == null then "-" else . * 100 | round / 100 | tostring end;
def f3: if . == null then "-" else . * 1000 | round / 1000 | tostring end;
def f0: if . == null then "-" else round | tostring end;
JQ
}
