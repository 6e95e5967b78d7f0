#!/usr/bin/env python3
"""Per-scenario phase breakdown of the public RL rows: what the engine predicts for every phase
against what each row publishes, with the inputs that set the phases (lengths read, layouts,
tokens, MFU). A diagnosis aid: nothing is fitted or chosen here.

usage: scripts/diagnose_rl.py [--cli PATH] [--only SUBSTRING] [--hide-rollout-tp]
Reads tests/validation/data/rl_public.jsonl (one row per published number).

--hide-rollout-tp: for every public job that states its rollout engine's tp (and runs a rollout:
the weight-sync benchmarks are left aside), the tp the engine chooses with the stated one (and dp)
removed, beside the stated one, and how many it picks again: a check of the rule that chooses an
unstated tp (docs/rl.md, Layouts) on the jobs whose authors chose it.
"""
import json, os, subprocess
from collections import OrderedDict

from fitlib import ScriptParser, metric


def main():
    ap = ScriptParser(__doc__)
    ap.add_argument('--only', default='')
    ap.add_argument('--hide-rollout-tp', action='store_true')
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    rows = [json.loads(l) for l in open(os.path.join(here, '..', 'tests/validation/data/rl_public.jsonl'))]
    scen = OrderedDict()
    for r in rows:
        name = r['scenario']['name']
        if a.only and a.only not in name:
            continue
        scen.setdefault(name, (r['scenario'], r['group'], []))[2].append((r['metric'], r['expected']))
    if a.hide_rollout_tp:
        return hide_rollout_tp(a.cli, scen)
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


def hide_rollout_tp(cli, scen):
    same = total = 0
    for name, (sc, group, metrics) in scen.items():
        ro = sc['rl'].get('rollout', {})
        if 'tp' not in ro or all(m == 'rl.phases_s.weight_sync' for m, _ in metrics):
            continue
        hidden = json.loads(json.dumps(sc))
        for k in ('tp', 'dp'):
            hidden['rl']['rollout'].pop(k, None)
        out = json.loads(subprocess.run([cli, 'predict', '-', '--json'], input=json.dumps(hidden),
                                        capture_output=True, text=True).stdout)
        chosen = out['rl']['rollout']['parallel']['tp'] if 'rl' in out else 'error ' + out['error']['code']
        total += 1
        same += chosen == ro['tp']
        print(f"{name:36s} stated tp {ro['tp']:3d}  chosen {chosen}  [{group}]")
    print(f"chosen = stated in {same} of {total} jobs")


if __name__ == '__main__':
    main()
