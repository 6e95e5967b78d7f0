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
# The version, and the scenario format the build reads.
check version 0 "$bin" --version
if ! [[ $out =~ ^optimus\ [0-9]+\.[0-9]+\.[0-9]+\ \(scenarios\ of\ schema_version\ 1\)$ ]]; then
  echo "FAIL version: '$out'"; fails=$((fails + 1))
fi
# An unknown preset kind is the engine's error (status 2, as `preset`'s: preset_unknown_kind below);
# help for an unknown command says so (status 1) rather than printing the usage as if asked.
check presets_unknown_kind 2 "$bin" presets nope
check help_unknown 1 "$bin" help nope
contains help_unknown "no help for unknown command 'nope'"
check help_preset 0 "$bin" help preset
check table 0 "$bin" predict "$dir/default.json"
contains table "iteration time"
contains table "time to first token"
contains table "iteration time      58.051 s (80% range "
# Large counts in words or grouped digits, not as 3.698e+06 (the README's example holds 592,600).
contains table "device-hours        3.698 million (80% range 3.698 million - 8.227 million)"
contains table "cost                \$4.658 million ("
# Long durations read in hours or minutes, not thousands of seconds; from a year, in years.
contains table "restarts 12.16 h"
contains table "time to train       6.58 years (80% range 6.15 years - 7.58 years)"
contains table "Whole run (3,576,279 steps)"
contains table "80% ranges: where 80% of the published measurements"
# The kernels that take the most of an iteration, with their share and bound (training.operators).
contains table "    mlp_up backward              14.613 s   25.2%  compute-bound, 674 TFLOP/s"
# The prefill's and a decode step's heaviest kernels: the decode step is bound by memory and by the
# eager runtime's launches (inference.operators).
contains table "    mlp_up                     453.417 ms   32.9%  compute-bound, 679 TFLOP/s"
contains table "    norm_attn                    1.360 ms    5.5%  host-bound, 0 TFLOP/s"
# An operator of two layer kinds (gpt-oss-120b's windowed and global attention layers) is one
# line, its kinds summed: expert_up once, not twice at half the time.
oss='{"model":"gpt-oss-120b","system":"dgx-b200","num_devices":1,"inference":{"batch":64,"prompt_len":4096,"output_len":256}}'
check predict_layer_kinds 0 bash -c "printf '%s' '$oss' | '$bin' predict -"
contains predict_layer_kinds "    expert_up                  380.495 ms   23.4%  l2-bound, 3950 TFLOP/s"
contains predict_layer_kinds "    expert_up                    5.479 ms   30.9%  memory-bound, 73 TFLOP/s"
# Serving past vLLM's largest captured CUDA graph (512 tokens): the eager steps are counted.
eager='{"model":"llama3.2-1b","system":"dgx-h100","software":"vllm","num_devices":1,"inference":{"prompt_len":256,"output_len":256,"serving":{"arrival":"offline","num_requests":1536,"max_batch":1024}}}'
check predict_eager_steps 0 bash -c "printf '%s' '$eager' | '$bin' predict -"
contains predict_eager_steps "  eager steps         290 of 530 without CUDA graphs (past the largest captured graph, or an eager prefill)"
# Speculative decoding: tokens a step and the acceptance taken for each drafted position (DeepSeek
# R1's one MTP module drafting three: 0.85, then decayed by 0.85 a reused position).
spec='{"model":"deepseek-r1","system":"dgx-h200","num_devices":8,"parallel":{"tp":8},"inference":{"batch":8,"prompt_len":1024,"output_len":1024,"precision":"fp8","speculative":{"draft_tokens":3}}}'
check predict_speculative 0 bash -c "printf '%s' '$spec' | '$bin' predict -"
contains predict_speculative "speculative         2.841 tokens a step (acceptance by drafted position: 0.850, 0.722, 0.614)"
# Its decode step is per output token there, not the step the operators time: no decode kernels.
contains predict_speculative "heaviest kernels of the prefill:"
if [[ $out == *"heaviest kernels of a decode step"* ]]; then
  echo "FAIL predict_speculative: lists a decode step's kernels against a per-token step time"
  fails=$((fails + 1))
fi
# The README's example outputs (```text blocks opening with "$ optimus predict FILE"): every line
# but "..." is a line of what the command prints now, so the front door cannot go stale.
readme="$dir/../../README.md"
cmd="" block=""
while IFS= read -r line; do
  if [[ $line == '```text' ]]; then
    cmd="" block="open"
  elif [[ $line == '```' ]]; then
    block=""
  elif [[ $block == open && $line == '$ optimus '* ]]; then
    cmd=${line#\$ optimus }
    # shellcheck disable=SC2086
    example_out=$(cd "$dir/../.." && "$bin" $cmd 2>&1)
  elif [[ $block == open && -n $cmd && ${line// /} != '...' ]]; then
    if ! grep -qxF -- "$line" <<<"$example_out"; then
      echo "FAIL readme_example ($cmd): the CLI no longer prints '$line'"
      fails=$((fails + 1))
    fi
  fi
done <"$readme"
[[ -n $cmd ]] || { echo "FAIL readme_example: no example found in $readme"; fails=$((fails + 1)); }
check json 0 "$bin" predict "$dir/default.json" --json
contains json '"iteration_time_s"'
check stdin 0 bash -c "'$bin' predict - --json < '$dir/default.json'"
check malformed 2 bash -c "echo '{\"model\":' | '$bin' predict - --json"
contains malformed '"code":"scenario.malformed_json"'
check bad_layout 2 bash -c "sed 's/\"tp\": 8/\"tp\": 7/' '$dir/default.json' | '$bin' predict - --json"
contains bad_layout '"path":"/parallel"'
check human_error 2 bash -c "echo '{\"model\": \"nope\", \"system\": \"dgx-h100\", \"num_devices\": 1, \"training\": {\"global_batch\": 1, \"seq_len\": 8}}' | '$bin' predict -"
contains human_error "preset.unknown_model"
# One output token takes no decode step: its time per output token reads none, not 0 s.
# parallel "auto" names what the search chose: a training layout with its micro-batches and
# recomputation, a served one by its device split alone (the JSON echoes every key at its default).
check auto_training_line 0 bash -c "echo '{\"model\": \"llama3-8b\", \"system\": \"dgx-h100\", \"num_devices\": 8, \"parallel\": \"auto\", \"training\": {\"global_batch\": 64, \"seq_len\": 4096}}' | '$bin' predict -"
contains auto_training_line "Layout chosen by the search (training"
contains auto_training_line ", micro_batch "
check auto_serving_line 0 bash -c "sed 's/\"parallel\": {\"tp\": 4, \"pp\": 1}/\"parallel\": \"auto\"/' '$dir/llama3-70b-8xh100-serving.json' | '$bin' predict -"
contains auto_serving_line "Layout chosen by the search (serving"
if [[ $out == *"micro_batch"* || $out == *"zero_stage"* ]]; then
  echo "FAIL auto_serving_line: a served layout's line names training keys"
  fails=$((fails + 1))
fi
check one_token 0 bash -c "echo '{\"model\": \"llama3-8b\", \"system\": \"dgx-h100\", \"num_devices\": 1, \"inference\": {\"batch\": 4, \"prompt_len\": 512, \"output_len\": 1}}' | '$bin' predict -"
contains one_token "time per out token  none (one output token: no decode step)"
# The host-memory optimizer is named as what sits in host memory (not offloaded activations).
check host_optimizer 0 bash -c "echo '{\"model\": \"llama3.1-70b\", \"system\": \"dgx-h100\", \"num_devices\": 8, \"parallel\": {\"tp\": 8, \"zero_stage\": 1, \"optimizer_offload\": true, \"recompute\": \"full\"}, \"training\": {\"global_batch\": 64, \"seq_len\": 4096}}' | '$bin' predict -"
contains host_optimizer "of optimizer state (parallel.optimizer_offload)"
# An RL placement search marks the trainers that fit only with the optimizer in host memory (the
# split pools, from 14th place: the colocated engines with their experts spread come first).
check rl_search_hosted 0 bash -c "echo '{\"model\": \"qwen3-235b-a22b\", \"system\": \"dgx-h100\", \"num_devices\": 64, \"rl\": {\"prompts_per_step\": 128, \"samples_per_prompt\": 8, \"prompt_len\": 1024, \"response_len\": 4096, \"train\": \"auto\"}}' | '$bin' search - --top 20"
contains rl_search_hosted "* the trainer fits only with its optimizer state in host memory"
# Each placement names its trainer's whole layout, the expert parallelism of an MoE trainer included.
contains rl_search_hosted "trainer layout"
contains rl_search_hosted " ep 16 "
# So does a predicted step: an MoE trainer's layout is mostly its expert parallelism.
check rl_predict_trainer 0 bash -c "echo '{\"model\": \"qwen3-30b-a3b\", \"system\": \"dgx-h100\", \"num_devices\": 8, \"rl\": {\"prompts_per_step\": 32, \"samples_per_prompt\": 8, \"prompt_len\": 512, \"response_len\": 2048, \"train\": {\"ep\": 8}}}' | '$bin' predict -"
contains rl_predict_trainer "train: 8 devices as tp 1 pp 1 dp 8 ep 8 mb "
check static_rate 0 bash -c "echo '{\"model\": \"llama3-8b\", \"system\": \"dgx-h100\", \"num_devices\": 1, \"parallel\": {\"tp\": 1}, \"inference\": {\"batch\": 256, \"prompt_len\": 512, \"output_len\": 256}}' | '$bin' predict -"
contains static_rate "throughput          8,747 tokens/s per replica"
check rl_preset 0 "$bin" predict qwen2.5-7b-grpo-8xh100
contains rl_preset "tokens trained      23,717 tokens/s (2,965 per GPU)"
contains rl_preset "8 devices as tp 4 x pp 1 x dp 2, 1,024 responses"
contains rl_preset "whole run: 500 steps"
# Counts are grouped by thousands like every other number of the text: the largest batch, requests.
check max_batch_grouped 0 bash -c "echo '{\"model\": \"llama3-8b\", \"system\": \"dgx-h100\", \"num_devices\": 8, \"parallel\": {\"tp\": 8}, \"inference\": {\"batch\": 1, \"prompt_len\": 1, \"output_len\": 1}}' | '$bin' predict -"
contains max_batch_grouped "largest batch that fits 675,812"
check serving_requests_grouped 0 "$bin" predict llama3-70b-8xh100-serving
contains serving_requests_grouped "Serving (continuous batching, 2,000 requests on 2 replica(s), 8 devices)"
# An RL search that finds no placement says so, and how many devices would have one: DeepSeek-V3's
# engines fit no 8 H100, its trainer first 64.
check rl_search_none 0 bash -c "echo '{\"model\": \"deepseek-v3\", \"system\": \"dgx-h100\", \"num_devices\": 8, \"rl\": {\"prompts_per_step\": 128, \"samples_per_prompt\": 8, \"train\": \"auto\"}}' | '$bin' search -"
contains rl_search_none "placements in"
contains rl_search_none "No placement runs this job."
contains rl_search_none "64 devices would have one (the fewest found, up to 32 times as many)."
check missing_file 1 "$bin" predict /nonexistent.json
contains missing_file "no such file, nor a preset scenario of that name (optimus presets scenarios lists them)"
# Where no file has the name, a preset scenario's id is read (predict, validate, search, import's
# --scenario); a file of that name comes first; calibrate's measurements are a file only.
abs_bin=$(realpath "$bin") abs_dir=$(realpath "$dir")
check preset_id_predict 0 bash -c "cd \"\$(mktemp -d)\" && trap 'rm -rf \"\$PWD\"' EXIT && '$abs_bin' predict default --json > id.json && '$abs_bin' predict '$abs_dir/default.json' --json | cmp - id.json"
check preset_id_validate 0 "$bin" validate llama3-70b-8xh100-serving
contains preset_id_validate '"ok": true'
check preset_id_search 0 "$bin" search default --top 1
contains preset_id_search "Searched 1 layout in "
contains preset_id_search "1 feasible"
# A training search names the layout keys the scenario holds fixed (the default states them all).
contains preset_id_search "Held as the scenario states them: tp 8, pp 2, dp 4, micro_batch 1, interleave 1, sequence_parallel true, recompute selective, zero_stage 1 (take a key out of"
check search_held_serving 0 "$bin" search llama3-70b-8xh100-serving --top 1
contains search_held_serving "Searched 3 deployments in "
if [[ $out == *"The other"* ]]; then echo "FAIL search_held_serving: a list as long as asked for names no repeats"; fails=$((fails + 1)); fi
# A serving list shorter than asked for says why: the other deployments differ only in max_batch.
check search_serving_repeats 0 "$bin" search llama3-70b-8xh100-serving --top 3
contains search_serving_repeats "The other 2 feasible deployments differ from a listed one only in the largest batch and predict the same."
if [[ $out == *"Held as"* ]]; then echo "FAIL search_held_serving: a serving search names training keys"; fails=$((fails + 1)); fi
# Counts grouped by thousands: the searched, the rejected, the throughputs.
check search_counts 0 bash -c "echo '{\"model\": \"llama3-70b\", \"system\": \"dgx-h100\", \"num_devices\": 64, \"parallel\": \"auto\", \"training\": {\"global_batch\": 512, \"seq_len\": 8192}}' | '$bin' search - --top 1"
contains search_counts "rejected memory.does_not_fit                      41,865"
contains search_counts "       75,405  57.4%"
# An inference search's throughput keeps its decimal below 1,000 tokens/s.
check search_inference_rate 0 bash -c "echo '{\"model\": \"llama3-8b\", \"system\": \"dgx-h100\", \"num_devices\": 8, \"inference\": {\"batch\": 1, \"prompt_len\": 512, \"output_len\": 256}}' | '$bin' search - --mode inference --top 1 --objective latency"
contains search_inference_rate "          275.1   3.78 GiB"
check preset_id_file_first 2 bash -c "cd \"\$(mktemp -d)\" && trap 'rm -rf \"\$PWD\"' EXIT && echo '{}' > default && '$abs_bin' predict default"
check preset_id_typo 1 "$bin" predict defualt
contains preset_id_typo "no such file, nor a preset scenario of that name; did you mean 'default'?"
check preset_id_calibrate 1 "$bin" calibrate default
contains preset_id_calibrate "cannot read 'default': no such file"
# A measurement's scenario may be a preset scenario's id, as predict's FILE may.
check calibrate_preset_scenario 0 bash -c "echo '{\"scenario\": \"default\", \"metric\": \"training.iteration_time_s\", \"measured\": 50}' | '$bin' calibrate -"
contains calibrate_preset_scenario "Calibration of NVIDIA DGX H100 (NVIDIA H100 SXM5 80GB), software of the system, on 1 measurement(s)"
check calibrate_unknown_scenario 2 bash -c "echo '{\"scenario\": \"defualt\", \"metric\": \"training.iteration_time_s\", \"measured\": 50}' | '$bin' calibrate -"
contains calibrate_unknown_scenario "error: calibrate.unknown_scenario at /1/scenario"
contains calibrate_unknown_scenario "no preset scenario 'defualt'; did you mean 'default'?"
# A directory opens as an empty stream: it is named as a directory, not read as empty JSON.
check directory 1 "$bin" predict "$dir"
contains directory "is a directory"
check validate_directory 1 "$bin" validate "$dir"
contains validate_directory "is a directory"
check presets 0 "$bin" presets models
contains presets "llama3-70b"
# Each kind's names in one column past its longest id (the model ids run to 29 characters).
check presets_models 0 "$bin" presets models
contains presets_models "  deepseek-r1-distill-qwen-1.5b  DeepSeek-R1-Distill-Qwen-1.5B"
contains presets_models "  deepseek-r1-distill-qwen-14b   DeepSeek-R1-Distill-Qwen-14B"
check presets_json 0 "$bin" presets --json
contains presets_json '"systems"'
check validate 0 "$bin" validate "$dir/default.json"
# Layout search: every key of default.json's parallel is fixed but cp, so its space is one
# layout, and best[0] must carry predict's numbers.
check search_help 0 "$bin" search --help
contains search_help "--top K"
check search_fixed 0 "$bin" search "$dir/default.json" --json
contains search_fixed '"evaluated":1,'
iteration=$(echo "$out" | grep -o '"iteration_time_s":[^,]*' | head -1)
[[ -n $iteration ]] || { echo "FAIL search_fixed: no iteration_time_s"; fails=$((fails + 1)); }
check search_repredict 0 "$bin" predict "$dir/default.json" --json
contains search_repredict "$iteration"
search_scenario='{"model": "gpt3-175b", "system": "dgx-a100-80gb", "num_devices": 64, "parallel": {"tp": 8},
  "training": {"global_batch": 64, "seq_len": 2048},
  "inference": {"batch": 1, "prompt_len": 128, "output_len": 16}}'
check search_table 0 bash -c "echo '$search_scenario' | '$bin' search - --top 3"
contains search_table "iteration"
contains search_table "memory.does_not_fit"
check search_inference 0 bash -c "echo '$search_scenario' | '$bin' search - --mode inference --objective latency --max-tpot 1 --json"
contains search_inference '"mode":"inference"'
contains search_inference '"objective":"latency"'
check search_bad_top 2 "$bin" search "$dir/default.json" --top 0 --json
contains search_bad_top '"code":"search.invalid_option"'
# A --top past 2^63 is named as given, not as the integer a cast overflowed to.
check search_huge_top 2 "$bin" search "$dir/default.json" --top 99999999999999999999
contains search_huge_top "'top' = 1e+20 is outside"
check search_bad_number 1 "$bin" search "$dir/default.json" --top many
# An option where a value should be is a missing value (the mode was read as '--json').
check search_missing_value 1 "$bin" search "$dir/default.json" --mode --json
contains search_missing_value "--mode needs a value before '--json'"
check search_missing_file 1 "$bin" search
check unknown_cmd 1 "$bin" frobnicate
check unknown_cmd_typo 1 "$bin" serch
contains unknown_cmd_typo "unknown command 'serch'; did you mean 'search'?"
# Every format the importer accepts (its unknown-format message lists them) is named by the usage
# text and by 'help import'.
check import_unknown 2 "$bin" import nope "$dir/default.json" --scenario "$dir/default.json" --json
contains import_unknown '"code":"import.unknown_format"'
formats=$(echo "$out" | sed -n "s/.*'; one of \([^\"]*\)\".*/\1/p" | sed 's/ (also / /; s/)//; s/,//g')
[[ -n $formats ]] || { echo "FAIL import_formats: no format list in the error"; fails=$((fails + 1)); }
check usage_formats 0 "$bin" --help
usage=$out
check help_import 0 "$bin" help import
for f in $formats; do
  [[ $usage == *"$f"* ]] || { echo "FAIL usage_formats: usage lacks import format $f"; fails=$((fails + 1)); }
  [[ $out == *"$f"* ]] || { echo "FAIL help_import: 'help import' lacks format $f"; fails=$((fails + 1)); }
done
check study_list 0 "$bin" study --list --json
contains study_list '"studies"'
contains study_list '"technology-nodes"'
check study_table 0 "$bin" study memory-recompute
contains study_table "megatron-1t"
# Tokens/s and the like as people read them ("169,100"); only FLOP counts keep an exponent, and
# this study has none.
check study_counts 0 "$bin" study gpu-generations
if [[ $out == *"e+0"* ]]; then echo "FAIL study_counts: a count written with an exponent"; fails=$((fails + 1)); fi
check study_json 0 "$bin" study gpu-generations --json
contains study_json '"speedup"'
# The text table writes each banded number's 80% band beside it, not as a column of key=value pairs.
check study_bands 0 "$bin" study cheapest-accelerator
contains study_bands " s ("
contains study_bands "(low - high) beside a number: its 80% band"
if [[ $out == *"iteration_time_s.low="* ]]; then
  echo "FAIL study_bands: the bands printed as key=value pairs"
  fails=$((fails + 1))
fi
check study_unknown 2 "$bin" study nope --json
contains study_unknown '"code":"study.unknown"'
check study_usage 1 "$bin" study
check study_help 0 "$bin" study --help
check presets_studies 0 "$bin" presets studies
contains presets_studies "gpu-generations"
check preset_study 0 "$bin" preset studies technology-nodes
contains preset_study '"area_mm2"'
# An unknown id lists the kind's ids; an unknown kind says so, not "no nope preset".
check preset_unknown 2 "$bin" preset models llama9
contains preset_unknown "known: deepseek-r1-distill-qwen-1.5b,"
check preset_unknown_kind 2 "$bin" preset modles llama3-8b
contains preset_unknown_kind "unknown preset kind 'modles'; did you mean 'models'?"
# A mistyped option is named with the one it probably was, in every command; never read as a file,
# a kind or a missing argument.
check option_typo_predict 1 "$bin" predict --jsn default
contains option_typo_predict "optimus predict: unexpected argument '--jsn'; did you mean '--json'?"
check option_typo_search 1 "$bin" search default --tpo 3
contains option_typo_search "unexpected argument '--tpo'; did you mean '--top'?"
check option_typo_import 1 "$bin" import vllm "$dir/default.json" --scenaro "$dir/default.json"
contains option_typo_import "unexpected argument '--scenaro'; did you mean '--scenario'?"
check option_typo_presets 1 "$bin" presets --jsn
contains option_typo_presets "optimus presets: unexpected argument '--jsn'; did you mean '--json'?"
check option_typo_validate 1 "$bin" validate default --jsn
contains option_typo_validate "optimus validate: unexpected argument '--jsn'; did you mean '--json'?"
# validate prints JSON anyway and takes --json as the other commands do.
check validate_json_flag 0 "$bin" validate default --json
contains validate_json_flag '"ok": true'
check validate_no_file 1 "$bin" validate
contains validate_no_file "optimus validate: missing FILE (or '-' for stdin)"
check preset_help 0 "$bin" preset --help
contains preset_help "usage: optimus preset KIND ID [--json]"
check help_typo 1 "$bin" help serch
contains help_typo "optimus: no help for unknown command 'serch'; did you mean 'search'?"
check version_typo 1 "$bin" --verison
contains version_typo "optimus: unknown command '--verison'; did you mean '--version'?"
check presets_kind_singular 2 "$bin" presets model
contains presets_kind_singular "unknown preset kind 'model'; did you mean 'models'?; use models,"
check study_unknown_typo 2 "$bin" study memory-recomput
contains study_unknown_typo "did you mean 'memory-recompute'?"
# An import that fails says so in words on standard error and writes nothing a pipe into calibrate
# would read as a line (it had printed the error object on standard output).
check import_error_words 2 "$bin" import vllm "$dir/default.json" --scenario "$dir/default.json"
contains import_error_words "error: import.malformed"
piped=$("$bin" import vllm "$dir/default.json" --scenario "$dir/default.json" 2>/dev/null)
[[ -z $piped ]] || { echo "FAIL import_error_stdout: '$piped' on standard output"; fails=$((fails + 1)); }
check import_unknown_typo 2 "$bin" import vlm "$dir/default.json" --scenario "$dir/default.json"
contains import_unknown_typo "unknown format 'vlm'; did you mean 'vllm'?"
# With --json their errors are the JSON error object on standard output (a script reads one format).
check presets_unknown_kind_json 2 "$bin" presets nope --json
contains presets_unknown_kind_json '{"error":{"code":"preset.unknown_kind"'
check preset_unknown_json 2 "$bin" preset models llama9 --json
contains preset_unknown_json '{"error":{"code":"preset.unknown"'
check preset_json 0 "$bin" preset models llama3-8b --json
contains preset_json '"name": "Llama 3 8B"'
# A preset is written one key a line, the file's order, and ends its last line.
check preset_pretty 0 "$bin" preset models llama3-70b
contains preset_pretty $'{\n  "name": "Llama 3 70B",\n  "source": '
contains preset_pretty $'"max_seq_len": 8192\n}'
last=$("$bin" preset models llama3-70b | tail -c 1 | od -An -tx1 | tr -d ' ')
[[ $last == 0a ]] || { echo "FAIL preset_newline: the preset's last byte is '$last', not a newline"; fails=$((fails + 1)); }
check schema_json 0 "$bin" schema --json
contains schema_json '"scenario":{"$schema":"https://json-schema.org/draft/2020-12/schema"'
contains schema_json '"prediction":'
contains schema_json '"x-unit":"GB/s"'
check schema_table 0 "$bin" schema
contains schema_table "/model/position"
contains schema_table "/system/scale_up/all_to_all"
check schema_help 0 "$bin" help schema
contains schema_help "x-unit"
check schema_bad_arg 1 "$bin" schema --yaml
if ((fails > 0)); then
  echo "$fails CLI checks failed"
  exit 1
fi
echo "all CLI checks passed"
