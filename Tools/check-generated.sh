#!/usr/bin/env bash
# Regenerates each generated table into a temporary file and fails, showing the diff, when it differs from
# the committed one: the CLDR plural rules (PluralRuleTable.swift) and parent locales (ParentLocaleTable.swift).
# Needs the generators' Babel: pip install babel==2.18.0
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
status=0

check() {
    local generator="$1" committed="$2"
    local regenerated
    regenerated="$(mktemp "${TMPDIR:-/tmp}/generated.XXXXXX.swift")"
    python3 "$repo_root/Tools/$generator" --output "$regenerated"
    if diff -u --label "committed: ${committed#"$repo_root"/}" --label "regenerated" "$committed" "$regenerated"; then
        echo "check-generated: $(basename "$committed") matches its generator."
    else
        echo "check-generated: $(basename "$committed") is stale; run python3 Tools/$generator and commit it." >&2
        status=1
    fi
    rm -f "$regenerated"
}

check generate-plural-rules.py "$repo_root/Sources/HuddleLocalization/Plurals/PluralRuleTable.swift"
check generate-parent-locales.py "$repo_root/Sources/HuddleLocalization/Catalogs/ParentLocaleTable.swift"
exit "$status"
