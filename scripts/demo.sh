#!/usr/bin/env bash
# make demo: the main job end to end on the embedded default engine.
#
#   1. the MIMIC-IV demo database (DuckDB), built from ../shared/mimic-iv-demo
#      or downloaded from PhysioNet;
#   2. a released model run (gpt-5-chat by default) executed again on it;
#   3. judged: results leaves decided in code where code can, the rest by the
#      published judge decisions (replay), or by a live LLM judge when
#      CLINSQL_JUDGE_CONFIG names a judge configuration;
#   4. a report (Markdown, CSV, JSON, HTML) beside the 16 released models.
#
# Offline when ../shared (or $CLINSQL_SHARED) holds the data; otherwise the
# public ClinSQL release and the MIMIC-IV demo are downloaded first.
# Usage: scripts/demo.sh BIN SHARED OUT
set -euo pipefail
bin=${1:?binary}; shared=${2:?shared folder}; out=${3:?output folder}
model=${DEMO_MODEL:-gpt-5-chat}
mkdir -p "$out/logs"

# A Ctrl-C (SIGINT to the whole process group) stops the step that runs:
# clinsql keeps what it finished and exits 130; the demo says interrupted,
# not failed.
interrupted=
trap 'interrupted=1' INT TERM
stopped() {
	echo >&2
	echo "clinsql demo: interrupted during step '$1'; nothing is reported; make demo starts it again" >&2
	exit 130
}

# quietly runs a step with its warnings and progress in $out/logs/NAME.log,
# and shows that log if the step fails: a failed demo says why.
quietly() {
	local name=$1 code=0
	shift
	"$@" 2>"$out/logs/$name.log" || code=$?
	if [ -n "$interrupted" ] || [ "$code" -eq 130 ]; then
		stopped "$name"
	fi
	if [ "$code" -ne 0 ]; then
		echo "clinsql demo: step '$name' failed; its log ($out/logs/$name.log) ends:" >&2
		tail -n 20 "$out/logs/$name.log" >&2
		exit 1
	fi
}

# showing is quietly for a long step: on a terminal its progress line is
# drawn there (clinsql draws it only on a terminal) and the log records
# that the step ran there; otherwise its messages go to the log and, as
# they come, to stderr.
showing() {
	local name=$1 code=0
	shift
	if [ -t 2 ]; then
		echo "(progress on the terminal; not logged)" >"$out/logs/$name.log"
		"$@" || code=$?
	else
		"$@" 2> >(trap '' INT; tee "$out/logs/$name.log" >&2) || code=$?
		wait # for tee
	fi
	if [ -n "$interrupted" ] || [ "$code" -eq 130 ]; then
		stopped "$name"
	fi
	if [ "$code" -ne 0 ]; then
		echo "clinsql demo: step '$name' failed (exit $code); its log is $out/logs/$name.log" >&2
		exit 1
	fi
}

data="$shared/clinsql-data"
if [ ! -d "$data/data/splits" ]; then
	data="$out/clinsql-data"
	if [ ! -d "$data/data/splits" ]; then
		echo "== no ClinSQL data in $shared: downloading the public release into $data"
		"$bin" datasets fetch clinsql --out "$data" --outputs
	fi
fi

db="$out/mimic-iv-demo.duckdb"
if [ ! -f "$db" ]; then
	mimic="$shared/mimic-iv-demo"
	if [ ! -d "$mimic/hosp" ]; then
		mimic="$out/mimic-iv-demo"
		echo "== no MIMIC-IV demo in $shared: downloading it from PhysioNet into $mimic"
		"$bin" db fetch-demo --out "$mimic"
	fi
	echo "== building the embedded MIMIC-IV database from $mimic"
	"$bin" db build --mimic "$mimic" --out "$db"
fi

recorded="$data/outputs/inference/$model"
grading="$data/outputs/evaluation/$model/validation/detailed_grading.json"
run="$out/runs/$model"
echo
echo "== executing $model's released SQL (BigQuery) again on the embedded engine"
# Always afresh (a few seconds): a folder left by an earlier binary would be
# resumed with that binary's results, or refused for other engine settings.
rm -rf "$run"
showing exec "$bin" exec --db "$db" --tasks "$data" --run "$recorded" --out "$run" --name "$model on the demo" --concurrency 2

echo
if [ -n "${CLINSQL_JUDGE_CONFIG:-}" ]; then
	echo "== judging (strict mode) with code checks and the live judge in $CLINSQL_JUDGE_CONFIG"
	judge=(--judge-config "$CLINSQL_JUDGE_CONFIG")
else
	echo "== judging (strict mode) with code checks, and the published judge decisions for the rest (replay):"
	echo "   the published SQL decisions apply (same query text); a published results decision judged"
	echo "   BigQuery's result, so it is replayed only where the demo's result is the same bytes, and"
	echo "   the other results leaves code cannot decide are invalid (counted as failures in strict mode)"
	judge=(--judge "replay:$grading")
fi
quietly judge "$bin" judge --tasks "$data" --run "$run" "${judge[@]}"

echo
echo "== report: the re-executed run beside the 16 released models (published decisions),"
echo "   strict mode, the reference (published scorer's) mode beside it"
args=()
# Each released model's grading with its released run, so its task pages
# show its SQL, attempts and result (as the README's loop does).
for g in "$data"/outputs/evaluation/*/validation/detailed_grading.json; do
	args+=(--grading "$g")
	m=$(basename "$(dirname "$(dirname "$g")")")
	if [ -d "$data/outputs/inference/$m" ]; then
		args+=(--run "$data/outputs/inference/$m")
	fi
done
showing report "$bin" report --tasks "$data" --run "$run" "${args[@]}" --out "$out/report"
echo
echo "Note: the demo database holds 100 patients, not the whole of MIMIC-IV, so values computed"
echo "on it miss the acceptable bands written for the full data, and results leaves that code"
echo "cannot decide have no judge without CLINSQL_JUDGE_CONFIG (invalid, counted as failures):"
echo "execution scores of the run executed on the demo are far lower than on BigQuery and not"
echo "comparable with them. The pipeline is what the demo shows."
