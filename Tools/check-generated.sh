#!/usr/bin/env bash
# Regenerates the CLDR plural rule table into a temporary file and fails, showing the diff, when it
# differs from the committed Sources/HuddleLocalization/Plurals/PluralRuleTable.swift.
# Needs the generator's Babel: pip install babel==2.18.0
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
committed="$repo_root/Sources/HuddleLocalization/Plurals/PluralRuleTable.swift"
regenerated="$(mktemp "${TMPDIR:-/tmp}/PluralRuleTable.XXXXXX.swift")"
trap 'rm -f "$regenerated"' EXIT

python3 "$repo_root/Tools/generate-plural-rules.py" --output "$regenerated"

if ! diff -u --label "committed: ${committed#"$repo_root"/}" --label "regenerated" "$committed" "$regenerated"; then
    echo "check-generated: PluralRuleTable.swift is stale; run python3 Tools/generate-plural-rules.py and commit it." >&2
    exit 1
fi
echo "check-generated: PluralRuleTable.swift matches its generator."
