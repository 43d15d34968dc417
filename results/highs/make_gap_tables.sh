#!/usr/bin/env bash
# Reproduces results/highs/gap_*.{txt,json}: the bound-gap table (Jaakkola et al. 2010, §7)
# for wine, alarm1000 and carpo500.  Run from the repository root.
set -euo pipefail
declare -A FILES=(
  [wine]="instances/alisterl__eBNSL/scores/wine.BIC.3 -1258.4459086099996"
  [alarm1000]="instances/anchors/gobnilp-bic3/alarm1000.BIC.p3.jkl -11783.05241228"
  [carpo500]="instances/anchors/gobnilp-bic3/carpo500.BIC.p3.jkl -9195.48652936"
)
for name in wine alarm1000 carpo500; do
  read -r file opt <<< "${FILES[$name]}"
  lpbn gap "$file" --optimum "$opt" --time-limit 300 -o "results/highs/gap_${name}.txt"
  lpbn gap "$file" --optimum "$opt" --time-limit 300 --format json -o "results/highs/gap_${name}.json"
done
