#!/usr/bin/env bash
# End-to-end checks of the optimus command line: usage OPTIMUS SCENARIO_DIR.
set -u
bin=$1
dir=$2
fails=0
check() { # check NAME EXPECTED_STATUS COMMAND... ; output in $out
  local name=$1 want=$2
  shift 2
  out=$("$@" 2>&1)
  local got=$?
  if [[ $got != "$want" ]]; then
    echo "FAIL $name: exit $got, expected $want"
    echo "$out" | head -5
    fails=$((fails + 1))
  else
    echo "ok   $name"
  fi
}
contains() { # contains NAME NEEDLE
  if [[ $out != *"$2"* ]]; then
    echo "FAIL $1: output lacks '$2'"
    fails=$((fails + 1))
  fi
}
check help 0 "$bin" --help
contains help "optimus predict"
check predict_help 0 "$bin" predict --help
check presets_help 0 "$bin" presets --help
check table 0 "$bin" predict "$dir/default.json"
contains table "iteration time"
contains table "time to first token"
check json 0 "$bin" predict "$dir/default.json" --json
contains json '"iteration_time_s"'
check stdin 0 bash -c "'$bin' predict - --json < '$dir/default.json'"
check malformed 2 bash -c "echo '{\"model\":' | '$bin' predict - --json"
contains malformed '"code":"scenario.malformed_json"'
check bad_layout 2 bash -c "sed 's/\"tp\": 8/\"tp\": 7/' '$dir/default.json' | '$bin' predict - --json"
contains bad_layout '"path":"/parallel"'
check human_error 2 bash -c "echo '{\"model\": \"nope\", \"system\": \"dgx-h100\", \"num_devices\": 1, \"training\": {\"global_batch\": 1, \"seq_len\": 8}}' | '$bin' predict -"
contains human_error "preset.unknown_model"
check missing_file 1 "$bin" predict /nonexistent.json
check presets 0 "$bin" presets models
contains presets "llama3-70b"
check presets_json 0 "$bin" presets --json
contains presets_json '"systems"'
check validate 0 "$bin" validate "$dir/default.json"
check unknown_cmd 1 "$bin" frobnicate
if ((fails > 0)); then
  echo "$fails CLI checks failed"
  exit 1
fi
echo "all CLI checks passed"
