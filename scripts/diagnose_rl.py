#!/usr/bin/env python3
"""Per-scenario phase breakdown of the public RL rows: what the engine predicts for every phase
against what each row publishes, with the inputs that set the phases (lengths read, layouts,
tokens, MFU). A diagnosis aid: nothing is fitted or chosen here.

usage: scripts/diagnose_rl.py [--cli PATH] [--only SUBSTRING] [--json]
Reads tests/validation/data/rl_public.jsonl (one row per published number).
"""
import argparse, json, os, subprocess
from collections import OrderedDict

from fitlib import metric


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cli', default='build/native/cli/optimus')
    ap.add_argument('--only', default='')
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    rows = [json.loads(l) for l in open(os.path.join(here, '..', 'tests/validation/data/rl_public.jsonl'))]
    scen = OrderedDict()
    for r in rows:
        name = r['scenario']['name']
        if a.only and a.only not in name:
            continue
        scen.setdefault(name, (r['scenario'], r['group'], []))[2].append((r['metric'], r['expected']))
    for name, (sc, group, metrics) in scen.items():
        res = subprocess.run([a.cli, 'predict', '-', '--json'], input=json.dumps(sc), capture_output=True, text=True)
        out = json.loads(res.stdout)
        if 'error' in out:
            print(name, 'ERROR', out['error'])
            continue
        rl = out['rl']
        ph = rl['phases_s']
        print(f"== {name}  [{group}]")
        print('   phases: ' + '  '.join(f"{k} {v:.1f}" for k, v in ph.items()) + f"  step {rl['step_time_s']:.1f}")
        ro = rl.get('rollout', {})
        tr = rl.get('train', {})
        print('   rollout: ' + '  '.join(f"{k}={v}" for k, v in ro.items() if not isinstance(v, (dict, list))))
        print('   train:   ' + '  '.join(f"{k}={v}" for k, v in tr.items() if not isinstance(v, (dict, list))))
        if 'roles' in rl:
            print('   roles:   ' + json.dumps(rl['roles']))
        for m, e in metrics:
            p = metric(out, m)
            print(f"   {m:28s} pred {p:10.2f}  meas {e:10.2f}  ratio {p / e:6.2f}")
        for w in out.get('warnings', []):
            if w['code'].startswith('rl.'):
                print('   warn', w['code'], w['message'][:120])


if __name__ == '__main__':
    main()
