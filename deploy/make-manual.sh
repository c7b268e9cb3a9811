#!/usr/bin/env bash
# Builds plan-regen's man page and shell completions from the command-line definitions
# (swift-argument-parser): the same text as `plan-regen help COMMAND`, exit codes included.
#
#   deploy/make-manual.sh [OUT]     # OUT defaults to .build/share
#
# writes
#   OUT/man/man1/plan-regen.1                         man -l OUT/man/man1/plan-regen.1
#   OUT/bash-completion/completions/plan-regen        bash
#   OUT/zsh/site-functions/_plan-regen                zsh
#   OUT/fish/vendor_completions.d/plan-regen.fish     fish
# Install by copying OUT's folders below /usr/local/share (or /usr/share).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build/share}"

# The GenerateManual plugin of swift-argument-parser builds the tools and writes a page for
# each executable target into .build/plugins/GenerateManual/outputs/TOOL/.
swift package plugin generate-manual --configuration debug >&2
install -D -m 0644 .build/plugins/GenerateManual/outputs/plan-regen/plan-regen.1 "$out/man/man1/plan-regen.1"

bin="$(swift build --show-bin-path)/plan-regen"
swift build --product plan-regen >&2
install -d "$out/bash-completion/completions" "$out/zsh/site-functions" "$out/fish/vendor_completions.d"
"$bin" --generate-completion-script bash > "$out/bash-completion/completions/plan-regen"
"$bin" --generate-completion-script zsh > "$out/zsh/site-functions/_plan-regen"
"$bin" --generate-completion-script fish > "$out/fish/vendor_completions.d/plan-regen.fish"
echo "wrote $out/man/man1/plan-regen.1 and the bash, zsh and fish completions" >&2
