#!/usr/bin/env bash
# The GitHub Action's step (action.yml): run one audit and fail the job by its exit code.
# Inputs arrive as environment variables (never pasted into the script, so a file name cannot
# become a command): INPUT_COMMAND (panel | calibrate), INPUT_FILES and INPUT_ARGS (split as a
# shell splits words), INPUT_STRICT (true: --strict), INPUT_REPORT (the JUnit XML path),
# INPUT_ALLOW (verdict exit codes that do not fail the job, e.g. "1"). Writes the outputs verdict,
# exit-code and report to $GITHUB_OUTPUT and the text report to $GITHUB_STEP_SUMMARY.
# Exit: the audit's code (0/1/2 verdicts, 3 bad input, 4 internal error), or 0 for an allowed
# verdict; 3 and 4 are never allowed: a crash or a misread file never passes a gate.
set -uo pipefail

command="${INPUT_COMMAND:-}"
case "$command" in
  panel|calibrate) ;;
  *) echo "agreebound action: command must be panel or calibrate, not '${command}'" >&2; exit 3 ;;
esac
report="${INPUT_REPORT:-agreebound-gates.xml}"
words="$(python3 -c 'import os, shlex, sys
try:
    argv = shlex.split(os.environ.get("INPUT_FILES", "")) + shlex.split(os.environ.get("INPUT_ARGS", ""))
except ValueError as e:
    sys.exit(f"agreebound action: the inputs files and args are not quoted as a shell would read them ({e})")
if any("\n" in a or "\0" in a for a in argv):
    sys.exit("agreebound action: a file name or argument holds a line break")
print("\n".join(argv))')" || exit 3
mapfile -t argv <<< "$words"
if [ -z "$words" ]; then
  argv=()
fi
if [ "${#argv[@]}" -eq 0 ]; then
  echo "agreebound action: no files given (input 'files')" >&2
  exit 3
fi
cmd=(agreebound "$command" "${argv[@]}" --report "$report")
if [ "${INPUT_STRICT:-false}" = "true" ]; then
  cmd+=(--strict)
fi

out="$(mktemp)"
rm -f -- "$report"  # a report left by an earlier run must never speak for this one
"${cmd[@]}" | tee "$out"
code="${PIPESTATUS[0]}"

verdict="$(python3 - "$report" "$code" <<'PY'
import sys
import xml.etree.ElementTree as ET

path, code = sys.argv[1], int(sys.argv[2])
words = {0: "passes", 1: "does not pass", 2: "refused structurally", 3: "bad input", 4: "internal error"}
verdicts = []
if code in (0, 1, 2):  # a verdict: this run wrote the report
    try:
        suites = ET.parse(path).getroot().iter("testsuite")
        verdicts = [p.get("value").split(" ")[0] for s in suites for p in s.iter("property") if p.get("name") == "verdict"]
    except (OSError, ET.ParseError):
        pass
print(", ".join(dict.fromkeys(verdicts)) or words.get(code, f"exit {code}"))
PY
)"

{
  echo "verdict=$verdict"
  echo "exit-code=$code"
  if [ -f "$report" ]; then echo "report=$report"; else echo "report="; fi
} >> "${GITHUB_OUTPUT:-/dev/null}"
{
  echo "### agreebound $command: $verdict (exit $code)"
  echo
  echo '```'
  head -c 60000 "$out"
  echo '```'
} >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
rm -f "$out"

if [ "$code" -eq 1 ] || [ "$code" -eq 2 ]; then
  IFS=',' read -r -a allowed <<< "${INPUT_ALLOW:-}"
  for a in "${allowed[@]}"; do
    if [ "$(echo "$a" | tr -d ' ')" = "$code" ]; then
      echo "agreebound action: exit $code ($verdict) is allowed by the input 'allow'; the job goes on"
      exit 0
    fi
  done
fi
exit "$code"
