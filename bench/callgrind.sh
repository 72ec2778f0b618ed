#!/usr/bin/env bash
# bench/callgrind.sh — callgrind instructions per operation for Basalt benchmark workloads
# W1, W2 (1k-row range), W3 and W7, from a built `basalt-bench` binary.
#
# Usage:  bench/callgrind.sh /path/to/basalt-bench [WORKDIR]
#   stdout: one line per workload: "<workload> <instructions per op>"
#   stderr: the exact valgrind commands, the per-run counts and the sizes used.
#   WORKDIR (default: a new mktemp -d) keeps the callgrind.out files and worker reports
#   (callgrind_annotate them to see where the instructions go).
#
# Environment overrides (defaults in brackets):
#   CG_SAMPLES_A [1], CG_SAMPLES_B [3]  timed iterations per metric in the two runs
#   CG_WORKLOADS ["W1 W2-1k W3 W7"]     which rows to measure
#   CG_NICE [10]                         nice level of the valgrind runs
#   CG_SEED [839254459065573414]         the suite's fixed seed (model.rs SEED)
#   CG_COLLECT_ALL [0]                   1: count everything in the metric's part (no toggle:
#                                        adds the harness loop and, for W3, the untimed
#                                        DROP/CREATE and check query of each iteration);
#                                        a cross-check, not the reported figure
#
# Method.
# * Each workload's worker (`basalt-bench worker --driver basalt --workload ID ...`) runs
#   under callgrind twice, with min_samples = max_samples = A and then = B timed iterations,
#   and metric_budget_seconds = 0 (so exactly min_samples timed iterations follow the
#   warm-up iteration, independently of how slow valgrind makes the clock).
# * Counting is off at start (--collect-atstart=no) and toggled on only inside the basalt
#   driver's Session method the workload times (--toggle-collect on
#   <BasaltSession as Session>::query for W1/W2/W7, ::execute for W3). These are called
#   through `dyn Session`, so they exist as real functions in any build. This leaves out
#   data loading (which uses execute / execute_batch, and for W3 the untimed per-iteration
#   DROP/CREATE via execute_batch and the check query via query), and the harness loop.
#   The count includes everything the engine does for the statement: prepare_cached,
#   binding, execution, stepping the rows, and the bench's row digest (sink.row reading
#   each column through Row::get_ref), i.e. what the benchmark's timer measures.
# * --dump-after=std::io::stdio::_eprint writes one callgrind part per metric (the
#   harness eprintln!s one line when each metric finishes), so W2's 1k-row metric is
#   separated from its 100-row and 10k-row metrics.
# * instructions/op = (part(B) - part(A)) / ((B - A) * ops per timed iteration).
#   The warm-up iteration (first prepare, cold caches) and all set-up are the same in both
#   runs and cancel.
#
# Sizes: W1, W2 and W3 at the catalogue size (scale 1.0: 100k rows); W7 at the --quick
# size (scale 0.05: 50k rows of `big`, the catalogue's 1M scaled as `basalt-bench --quick`
# does).
set -euo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: $0 /path/to/basalt-bench [WORKDIR]" >&2
    exit 2
fi
BIN=$(readlink -f "$1")
[[ -x "$BIN" ]] || { echo "not an executable: $1" >&2; exit 2; }
WORK=${2:-$(mktemp -d /tmp/cg-measure.XXXXXX)}
mkdir -p "$WORK"
WORK=$(readlink -f "$WORK")

A=${CG_SAMPLES_A:-1}
B=${CG_SAMPLES_B:-3}
NICE=${CG_NICE:-10}
SEED=${CG_SEED:-839254459065573414}
WORKLOADS=${CG_WORKLOADS:-"W1 W2-1k W3 W7"}
(( B > A )) || { echo "CG_SAMPLES_B must exceed CG_SAMPLES_A" >&2; exit 2; }

SESSION='<basalt_bench::driver::basalt::BasaltSession as basalt_bench::driver::Session>'
DUMP_FN='std::io::stdio::_eprint'

# name | workload id | scale | toggled Session method | metric name | ops per timed iteration
spec() {
    case "$1" in
        W1)    echo "W1.v1|1.0|query|10k random lookups by id|10000" ;;
        W2-1k) echo "W2.v1|1.0|query|BETWEEN returning 1k rows|100" ;;
        W3)    echo "W3.v1|1.0|execute|100k rows in one transaction|100000" ;;
        W7)    echo "W7.v1|0.05|query|SELECT SUM(v) FROM big|1" ;;
        *)     echo "unknown workload $1" >&2; return 1 ;;
    esac
}

echo "# binary: $BIN" >&2
echo "# workdir: $WORK; timed iterations A=$A B=$B" >&2

# Runs one worker under callgrind; prints the collected Ir of the metric's part.
run_one() {
    local name=$1 id=$2 scale=$3 method=$4 metric=$5 samples=$6
    local dir="$WORK/$name.s$samples"
    rm -rf "$dir"
    mkdir -p "$dir"
    local settings
    settings=$(printf '{"mode":"full","scale":%s,"seed":%s,"min_samples":%s,"max_samples":%s,"metric_budget_seconds":0.0,"tpcb_seconds":10.0,"job_timeout_seconds":36000.0}' \
        "$scale" "$SEED" "$samples" "$samples")
    local collect=(--collect-atstart=no "--toggle-collect=$SESSION::$method")
    [[ "${CG_COLLECT_ALL:-0}" == 1 ]] && collect=(--collect-atstart=yes)
    local cmd=(nice -n "$NICE" valgrind --tool=callgrind
        "--callgrind-out-file=$dir/callgrind.out.%p"
        "${collect[@]}"
        "--dump-after=$DUMP_FN"
        "$BIN" worker --driver basalt --workload "$id"
        --settings "$settings" --dir "$dir/db" --out "$dir/report.json")
    { printf '+'; printf ' %q' "${cmd[@]}"; printf '\n'; } >&2
    local start=$SECONDS
    "${cmd[@]}" >"$dir/valgrind.log" 2>&1 || {
        echo "worker failed, see $dir/valgrind.log" >&2
        tail -20 "$dir/valgrind.log" >&2
        return 1
    }
    rm -rf "$dir/db"
    # The metric's position in the report = its callgrind part; check it ran as planned.
    python3 - "$dir" "$metric" "$samples" "$(( SECONDS - start ))" <<'EOF'
import glob, json, re, sys
d, metric, samples, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
report = json.load(open(f"{d}/report.json"))
if report.get("error"):
    sys.exit(f"{d}: worker error: {report['error']}")
names = [m["name"] for m in report["metrics"]]
if metric not in names:
    sys.exit(f"{d}: no metric {metric!r} in {names}")
index = names.index(metric)
m = report["metrics"][index]
if m["status"] != "ok":
    sys.exit(f"{d}: metric {metric!r} status {m['status']}")
if len(m["sample_answers"]) != samples:
    sys.exit(f"{d}: {len(m['sample_answers'])} timed iterations, wanted {samples}")
parts = {}
for path in glob.glob(f"{d}/callgrind.out.*"):
    text = open(path).read()
    part = int(re.search(r"^part: (\d+)$", text, re.M).group(1))
    totals = re.search(r"^totals: (\d+)", text, re.M) or re.search(r"^summary: (\d+)", text, re.M)
    parts[part] = int(totals.group(1))
# One dump per finished metric (the harness's eprintln) plus the final one at exit.
if len(parts) != len(names) + 1:
    sys.exit(f"{d}: {len(parts)} callgrind parts for {len(names)} metrics: "
             "something else wrote to stderr; cannot map parts to metrics")
ir = parts[index + 1]
if ir <= 0:
    sys.exit(f"{d}: nothing collected (toggle function not found?)")
print(f"#   {d}: parts {[parts[k] for k in sorted(parts)]}, metric part {index + 1} = {ir} Ir, "
      f"{secs} s", file=sys.stderr)
print(ir)
EOF
}

for name in $WORKLOADS; do
    IFS='|' read -r id scale method metric ops <<<"$(spec "$name")"
    ir_a=$(run_one "$name" "$id" "$scale" "$method" "$metric" "$A")
    ir_b=$(run_one "$name" "$id" "$scale" "$method" "$metric" "$B")
    n_ops=$(( (B - A) * ops ))
    per_op=$(python3 -c "print(f'{($ir_b - $ir_a) / $n_ops:.1f}')")
    echo "# $name: $id scale $scale, Session::$method, metric '$metric': ($ir_b - $ir_a) Ir / $n_ops ops" >&2
    echo "$name $per_op"
done
