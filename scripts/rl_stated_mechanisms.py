#!/usr/bin/env python3
"""The public RL rows with the mechanisms their sources state, against the rows as written.

usage: scripts/rl_stated_mechanisms.py [--cli PATH]

tests/validation/data/rl_public.jsonl writes each row in the rl block as it stood before the
stacks' mechanisms had keys (rl.roles, rl.async.partial_rollout, rl.train.offload, rl.weight_sync "host"). This script
adds to each scenario only what its row of tests/validation/data/rl_post_training.csv states
(quoted below), predicts both, and prints the mean |predicted / measured - 1| per source. Nothing
is fitted and no number is chosen here; it measures what the mechanisms change.
"""
import argparse, json, os, subprocess, sys
from collections import defaultdict

from fitlib import metric

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


def merge(a, b):
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict):
            merge(a[k], v)
        else:
            a[k] = v
    return a


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cli', default='build/native/cli/optimus')
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

    err = defaultdict(lambda: [[], []])
    for row in rows:
        sc = row['scenario']
        stated = json.loads(json.dumps(sc))
        if sc['name'] in STATED:
            merge(stated['rl'], STATED[sc['name']][0])
        for i, s in enumerate((sc, stated)):
            out = predict(s)
            if 'error' in out:
                sys.exit(f"{sc['name']}: {out['error']}")
            err[row['group']][i].append(abs(metric(out, row['metric']) / row['expected'] - 1))
    print(f"{'source':58s} {'n':>3s} {'as written':>11s} {'stated':>8s}")
    every = [[], []]
    for g, (base, stated) in sorted(err.items()):
        every[0] += base
        every[1] += stated
        print(f"{g[:58]:58s} {len(base):3d} {100 * sum(base) / len(base):10.1f}% {100 * sum(stated) / len(stated):7.1f}%")
    print(f"{'all':58s} {len(every[0]):3d} {100 * sum(every[0]) / len(every[0]):10.1f}% "
          f"{100 * sum(every[1]) / len(every[1]):7.1f}%")
    for name, (_, why) in STATED.items():
        print(f"  {name}: {why}")


if __name__ == '__main__':
    main()
