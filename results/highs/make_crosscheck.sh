#!/usr/bin/env bash
# Reproduces results/highs/crosscheck_*.txt: `lpbn check` (LP duality dual vs HiGHS over the
# dual's clusters + agreement of exact methods) on wine, alarm1000, carpo500 and a few more.
# Run from the repository root; exits non-zero if any check disagrees.
set -uo pipefail
rc=0
for f in instances/alisterl__eBNSL/scores/wine.BIC.3 \
         instances/anchors/gobnilp-bic3/alarm1000.BIC.p3.jkl \
         instances/anchors/gobnilp-bic3/carpo500.BIC.p3.jkl \
         instances/anchors/gobnilp-bic3/hepatitis.BIC.p3.jkl \
         instances/anchors/gobnilp-bic3/insurance1000.BIC.p3.jkl \
         instances/mauro-idsia__blip/data/child-5000.jkl; do
  name=$(basename "$f" | cut -d. -f1)
  lpbn check "$f" --time-limit 300 -o "results/highs/crosscheck_${name}.txt" || rc=1
done
exit $rc
