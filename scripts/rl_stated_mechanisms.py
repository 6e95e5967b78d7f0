#!/usr/bin/env python3
"""The public RL rows with the mechanisms their sources state, against the rows as written.

usage: scripts/rl_stated_mechanisms.py [--cli PATH]

tests/validation/data/rl_public.jsonl writes each row in the rl block as it stood before the
stacks' mechanisms had keys (rl.roles, rl.async.partial_rollout, rl.train.offload, rl.weight_sync "host"). This script
adds to each scenario only what its row of tests/validation/data/rl_post_training.csv states
(quoted below), predicts both, and prints the mean |predicted / measured - 1| per source. Nothing
is fitted and no number is chosen here; it measures what the mechanisms change. A third column
adds what the rows' scripts ran by their stack's defaults at the recipe's commit (DEFAULTS, below),
which the csv does not state.
"""
import json, os, subprocess, sys
from collections import defaultdict

from fitlib import ScriptParser, metric

# case name -> (the rl keys added, what the csv row states)
FULLY_ASYNC = ({'async': {'staleness': 1, 'partial_rollout': True}}, "sync_mode: 'partial_rollout=True'")
STATED = {
    'verlfa_7b_async_16_16': FULLY_ASYNC,
    'verlfa_7b_async_32_32': FULLY_ASYNC,
    'verlfa_7b_async_64_64': FULLY_ASYNC,
    'verlfa_7b_async_64_64_stale0.1': FULLY_ASYNC,
    'verlfa_7b_async_64_64_stale0.3': FULLY_ASYNC,
    'verlfa_30b_async_96_32': ({'async': {'staleness': 1, 'partial_rollout': True},
                               'train': {'offload': 'params_optimizer'}},
                              "sync_mode: 'partial_rollout=True'; train_layout: 'param/grad/optimizer CPU offload'"),
    'verlfa_7b_colocate_32': ({'train': {'offload': 'params_optimizer'}},
                              "train_layout: 'param/optimizer offload in colocate script'"),
    'verlfa_7b_colocate_64': ({'train': {'offload': 'params_optimizer'}},
                              "train_layout: 'param/optimizer offload in colocate script'"),
    'verlfa_7b_colocate_128': ({'train': {'offload': 'params_optimizer'}},
                               "train_layout: 'param/optimizer offload in colocate script'"),
    # ref : reward : actor : critic : vLLM, the order the row's notes read the ratio in
    'orlhf_bench_llama2_7b_8': ({'roles': {'reference': 1, 'reward': 1, 'actor': 2, 'critic': 2}},
                                "train_layout: 'GPU split 1:1:2:2:2'"),
    'orlhf_bench_llama2_13b_8': ({'roles': {'reference': 1, 'reward': 1, 'actor': 2, 'critic': 2}},
                                 "train_layout: 'GPU split 1:1:2:2:2'"),
    'orlhf_bench_llama2_70b_16': ({'roles': {'reference': 2, 'reward': 2, 'actor': 4, 'critic': 4}},
                                  "train_layout: 'GPU split 2:2:4:4:4'"),
}
# MoonshotAI checkpoint-engine's rows: "weights held in CPU memory: H2D + broadcast + reload pipeline"
HOST = ({'weight_sync': 'host'}, "notes: 'weights held in CPU memory: H2D + broadcast + reload pipeline'")
for case in ('ckpteng_glm45air_8xh800', 'ckpteng_q235b_8xh800', 'ckpteng_dsv31_16xh20', 'ckpteng_kimik2_16xh20',
             'ckpteng_dsv31_256xh20', 'ckpteng_kimik2_256xh20'):
    STATED[case] = HOST

# What the rows' own scripts ran without saying it in the csv: the stack's defaults at the commit
# of each recipe (a third column, apart from the csv's statements). verl's rollout config set
# enforce_eager: True ("Default True to allow cache freeing", verl/trainer/config/rollout/rollout.yaml)
# until main's ff6978c14 (2025-08-08) made it False. The one_step_off scripts (zdhNarsil/verl
# @03f1dece8efb, @1e7aa47776b5, July 2025) and the fully_async 7B scripts (volcengine/verl
# @34cf9e7b91fb, on a branch whose rollout.yaml still reads True) leave it at that default; the
# 30B async script sets actor_rollout_ref.rollout.enforce_eager=True itself (@144f58a5f1f7). The
# 30B colocated run's script is not published: left as written.
EAGER = ({'rollout': {'cuda_graphs': False}}, "verl's rollout default enforce_eager True at the recipe's commit")
DEFAULTS = {name: EAGER for name in (
    'verlos_7b_fsdp2_colocate_16', 'verlos_7b_fsdp2_onestep_4_12', 'verlos_7b_megatron_colocate_16',
    'verlos_7b_megatron_onestep_4_12', 'verlfa_7b_colocate_32', 'verlfa_7b_colocate_64', 'verlfa_7b_colocate_128',
    'verlfa_7b_async_16_16', 'verlfa_7b_async_32_32', 'verlfa_7b_async_64_64', 'verlfa_7b_async_64_64_stale0.1',
    'verlfa_7b_async_64_64_stale0.3', 'verlfa_7b_stream_64_64_stale0', 'verlfa_30b_async_96_32')}


def merge(a, b):
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict):
            merge(a[k], v)
        else:
            a[k] = v
    return a


def main():
    ap = ScriptParser(__doc__)
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    rows = [json.loads(l) for l in open(os.path.join(here, '..', 'tests/validation/data/rl_public.jsonl'))]
    cache = {}

    def predict(scenario):
        key = json.dumps(scenario, sort_keys=True)
        if key not in cache:
            r = subprocess.run([a.cli, 'predict', '-', '--json'], input=key, capture_output=True, text=True)
            cache[key] = json.loads(r.stdout)
        return cache[key]

    err = defaultdict(lambda: [[], [], []])
    for row in rows:
        sc = row['scenario']
        stated = json.loads(json.dumps(sc))
        if sc['name'] in STATED:
            merge(stated['rl'], STATED[sc['name']][0])
        defaults = json.loads(json.dumps(stated))
        if sc['name'] in DEFAULTS:
            merge(defaults['rl'], DEFAULTS[sc['name']][0])
        for i, s in enumerate((sc, stated, defaults)):
            out = predict(s)
            if 'error' in out:
                sys.exit(f"{sc['name']}: {out['error']}")
            err[row['group']][i].append(abs(metric(out, row['metric']) / row['expected'] - 1))
    mean = lambda e: 100 * sum(e) / len(e)
    print(f"{'source':58s} {'n':>3s} {'as written':>11s} {'stated':>8s} {'+ defaults':>11s}")
    every = [[], [], []]
    for g, cols in sorted(err.items()):
        for i in range(3):
            every[i] += cols[i]
        print(f"{g[:58]:58s} {len(cols[0]):3d} {mean(cols[0]):10.1f}% {mean(cols[1]):7.1f}% {mean(cols[2]):10.1f}%")
    print(f"{'all':58s} {len(every[0]):3d} {mean(every[0]):10.1f}% {mean(every[1]):7.1f}% {mean(every[2]):10.1f}%")
    for name, (_, why) in STATED.items():
        print(f"  {name}: {why}")
    for name, (_, why) in DEFAULTS.items():
        print(f"  {name} (+ defaults): {why}")


if __name__ == '__main__':
    main()
