#!/usr/bin/env python3
"""OpenRLHF's benchmark rows with the inputs the benchmark ran, against the rows as written: a
check of where their error comes from, not a validation input and not a fit.

usage: scripts/rl_openrlhf_inputs.py [--cli PATH]

tests/validation/data/rl_public.jsonl writes the three OpenRLHF benchmark rows with whole-number
prompt_len / response_len 1024 (read as limits: means of 205 and 256 assumed) and the trainer's
roles shared. What each row of tests/validation/data/rl_post_training.csv also publishes:
- its own throughput. The tokens per sample that follow from it (gen TFLOPs x GPUs x gen time /
  (2 x params per token); train TFLOPs x GPUs x train time / (16 x params per token): actor and
  critic, forward + backward + recompute) come to about 2,000-2,200, every sample at the full
  1024 + 1024, but only because OpenRLHF's printout (openrlhf/utils/perf.py at 0baf3dd) counts
  every sample at prompt_max_len + generate_max_len: these restate the limits (printed below);
- train_layout: the GPU split 1:1:2:2:2 (reference : reward : actor : critic : vLLM) and the
  generate micro-batch 16 / 8 / 4 prompts per call. At that commit each call waits for its
  longest response, and the experience and training micro-batches are padded to their longest
  sequence (docs/rl.md, Accuracy), so the time follows the longest of small batches, near the
  limits: the "full lengths" reading, with the generate batch as rollout.max_batch.
This script predicts each row as written, with the full lengths, and with the full lengths, the
roles and the generate batch, and prints predicted / published per number.
"""
import csv, json, os, subprocess

from fitlib import ScriptParser, metric

GEN_BATCH = {'orlhf_bench_llama2_7b_8': 16, 'orlhf_bench_llama2_13b_8': 8, 'orlhf_bench_llama2_70b_16': 4}
# The vLLM engines' tensor parallelism: TP 1 for 7B and 13B (their 2 vLLM GPUs hold the model
# each), TP 2 for 70B (the 70B example script at 0baf3dd: vllm_num_engines 2 x
# vllm_tensor_parallel_size 2 on its 4 vLLM GPUs).
ENGINE_TP = {'orlhf_bench_llama2_7b_8': 1, 'orlhf_bench_llama2_13b_8': 1, 'orlhf_bench_llama2_70b_16': 2}


def engine_batch(name, actor_gpus, vllm_gpus):
    """Responses one vLLM engine generates per round of calls: each actor rank's generate batch,
    times the actor ranks per engine (rank % engines picks the engine)."""
    return GEN_BATCH[name] * actor_gpus // (vllm_gpus // ENGINE_TP[name])


def implied_tokens(row):
    """Tokens per sample from the row's published TFLOPs (other_measured), per phase."""
    other = dict(x.strip().split('=', 1) for x in row['other_measured'].split(';') if '=' in x and 'TFLOPs' in x)
    n, params, gpus = float(row['prompts_per_step']), float(row['params_B']) * 1e9, float(row['num_gpus'])
    gen = float(other['gen TFLOPs']) * 1e12 * gpus * float(row['meas_gen_time_s']) / (2 * params) / n
    train = float(other['train TFLOPs']) * 1e12 * gpus * float(row['meas_train_time_s']) / (16 * params) / n
    return gen, train


def main():
    ap = ScriptParser(__doc__)
    a = ap.parse_args()
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests/validation/data')
    csv_rows = {r['case_id']: r for r in csv.DictReader(open(os.path.join(here, 'rl_post_training.csv')))}
    cases = {}
    for line in open(os.path.join(here, 'rl_public.jsonl')):
        r = json.loads(line)
        name = r['scenario']['name']
        if name in GEN_BATCH:
            cases.setdefault(name, (r['scenario'], []))[1].append((r['metric'], r['expected']))
    for name, (sc, metrics) in cases.items():
        gen, train = implied_tokens(csv_rows[name])
        print(f"{name}: tokens per sample implied by the published TFLOPs (counted at the limits): generation {gen:.0f}, training {train:.0f}")
        unit = sc['num_devices'] // 8
        full = {'prompt_len': [[1024, 1]], 'response_len': [[1024, 1]]}
        ran = dict(full, roles={'reference': unit, 'reward': unit, 'actor': 2 * unit, 'critic': 2 * unit},
                   rollout=dict(sc['rl']['rollout'], max_batch=GEN_BATCH[name]))
        # The lengths as written (limits), with what the stack did that the engine models: the roles,
        # the generate batch, and the training micro-batches padded to their longest sequence.
        padded = dict(roles=ran['roles'], rollout=ran['rollout'], train=dict(sc['rl']['train'], padding='longest'))
        # And the generate calls as static batches, each to its longest response.
        calls = dict(padded, rollout=dict(sc['rl']['rollout'], max_batch=engine_batch(name, 2 * unit, 2 * unit), static_batching=True))
        for label, patch in (('as written', {}), ('full lengths', full), ('full lengths, roles, generate batch', ran),
                             ('roles, generate batch, padding', padded), ('roles, static calls, padding', calls)):
            s = json.loads(json.dumps(sc))
            s['rl'].update(patch)
            out = json.loads(subprocess.run([a.cli, 'predict', '-', '--json'], input=json.dumps(s),
                                            capture_output=True, text=True).stdout)
            print(f"  {label:36s} " + '  '.join(
                f"{m.split('.')[-1]} {metric(out, m):7.0f} / {e:7.0f} ({metric(out, m) / e:4.2f})" for m, e in metrics))


if __name__ == '__main__':
    main()
