#!/usr/bin/env bash
# Regenerates each generated table into a temporary file and fails, showing the diff, when it differs from
# the committed one: the CLDR plural rules (PluralRuleTable.swift) and parent locales (ParentLocaleTable.swift),
# and the pages' icon (favicon.svg, favicon.ico). Needs the generators' Babel: pip install babel==2.19.0
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

# The pages' icon: two files from one drawing, compared byte for byte.
icons="$(mktemp -d "${TMPDIR:-/tmp}/favicon.XXXXXX")"
python3 "$repo_root/Tools/generate-favicon.py" --output-directory "$icons"
for file in favicon.svg favicon.ico; do
    if cmp -s "$icons/$file" "$repo_root/Sources/HuddleServer/Resources/Web/$file"; then
        echo "check-generated: $file matches its generator."
    else
        echo "check-generated: $file is stale; run python3 Tools/generate-favicon.py and commit it." >&2
        status=1
    fi
done
rm -rf "$icons"
exit "$status"
