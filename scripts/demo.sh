#!/usr/bin/env bash
# make demo: the main job on the embedded default, offline when the licensed
# data sits in ../shared, otherwise after downloading the public ClinSQL
# release. Usage: scripts/demo.sh BIN SHARED OUT
set -euo pipefail
bin=${1:?binary}; shared=${2:?shared folder}; out=${3:?output folder}
mkdir -p "$out"

data="$shared/clinsql-data"
if [ ! -d "$data/data/splits" ]; then
	data="$out/clinsql-data"
	if [ ! -d "$data/data/splits" ]; then
		echo "no ClinSQL data in $shared; downloading the public release into $data" >&2
		"$bin" datasets fetch clinsql --out "$data" --outputs
	fi
fi

echo "Rescoring the published judge decisions of every released model (validation split)."
echo "Left: the published scorer (reference mode, reproduced exactly). Right: strict mode"
echo "(judge errors are invalid, not passes; critical leaves count under every parent;"
echo "tasks the grading lacks stay in the denominator). Scores x100."
echo
for grading in "$data"/outputs/evaluation/*/validation/detailed_grading.json; do
	model=$(basename "$(dirname "$(dirname "$grading")")")
	"$bin" rescore --grading "$grading" --tasks "$data" --out "$out/$model" --mode strict --brief 2>/dev/null
done
echo
echo "Per-model summaries (strict) written under $out/<model>/."
