#!/usr/bin/env python3
"""Leave-one-in calibration on validation cases (issue 38; docs/calibration.md).

usage: scripts/calibration_report.py CASES_DIR [--cli PATH] [--sets a,b] [--choices N] [--rows]

CASES_DIR holds *.jsonl case files ({"id", "group", "scenario", "metric", "expected"} per line).
For each set, the cases are split by source (group) and system. In each split one case is the
measurement: `optimus calibrate` fits a calibration to it, and every other case of the split is
predicted with that calibration (a case on another device or software stack gets the warning
calibration.not_applicable and stays uncalibrated, as predict does). The error of those other
cases is reported before and after, per source and per set. With --choices N, up to N cases of
each split (evenly spaced, the first included) take the measurement's role in turn and the
errors are averaged over them; the default 1 uses each split's first case.
"""
import json, math, os, subprocess, sys, tempfile
from collections import defaultdict

from fitlib import ScriptParser


def find_cli():
    for d, _, files in sorted(os.walk('build')):
        p = os.path.join(d, 'optimus')
        if 'optimus' in files and os.access(p, os.X_OK):
            return p
    return None


def dig(obj, path):
    head, _, last = path.rpartition('.')
    if '+' in last:
        parts = [dig(obj, f'{head}.{k}' if head else k) for k in last.split('+')]
        return sum(parts) if all(isinstance(v, (int, float)) for v in parts) else None
    for k in path.split('.'):
        if not isinstance(obj, dict) or k not in obj:
            return None
        obj = obj[k]
    return obj


def err(got, expected):
    if not isinstance(got, (int, float)) or not math.isfinite(got):
        return 100.0
    return min(100.0 * abs(got - expected) / expected, 1000.0)


def run(cli, args, tmp, payload):
    f = os.path.join(tmp, 'in.json')
    with open(f, 'w') as fh:
        fh.write(payload)
    p = subprocess.run([cli] + args + [f, '--json'], capture_output=True, text=True, timeout=120)
    try:
        return json.loads(p.stdout), p.returncode
    except json.JSONDecodeError:
        return None, p.returncode


def main():
    ap = ScriptParser(__doc__, cli=False)  # its own --cli: without one, the first optimus under build/
    ap.add_argument('cases', metavar='CASES_DIR')
    ap.add_argument('--cli', metavar='PATH')
    ap.add_argument('--sets', default='train_public,train_moe_public,infer_public,serve_public,serve_inferencemax_public')
    ap.add_argument('--choices', type=int, default=1)
    ap.add_argument('--rows', action='store_true', help='print every scored case')
    a = ap.parse_args()
    cli = a.cli or find_cli()
    if not cli:
        print('no optimus executable under build/')
        return 1
    total_before, total_after = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.sets.split(','):
            path = os.path.join(a.cases, name + '.jsonl')
            if not os.path.exists(path):
                continue
            rows = [json.loads(l) for l in open(path)]
            splits = defaultdict(list)
            for r in rows:
                splits[(r['group'], json.dumps(r['scenario']['system'], sort_keys=True))].append(r)
            per_group = defaultdict(lambda: [[], [], 0])
            refused = 0
            for (group, _), members in splits.items():
                if len(members) < 2:
                    continue
                n = min(a.choices, len(members))
                picks = sorted({round(i * (len(members) - 1) / max(n - 1, 1)) for i in range(n)}) if n > 1 else [0]
                for pick in picks:
                    m = members[pick]
                    line = json.dumps({'scenario': m['scenario'], 'metric': m['metric'], 'measured': m['expected']})
                    out, rc = run(cli, ['calibrate'], tmp, line + '\n')
                    cal = out.get('calibration') if rc == 0 and out else None
                    if cal is None:
                        refused += 1
                    for o in members:
                        if o is m:
                            continue
                        s = dict(o['scenario'])
                        if cal is not None:
                            s['calibration'] = cal
                        p, prc = run(cli, ['predict'], tmp, json.dumps(s))
                        if prc != 0 or p is None:
                            eb = ea = 100.0
                        else:
                            after = dig(p, o['metric'])
                            before = after
                            c = p.get('calibration')
                            if c and c.get('applied'):
                                before = c['uncalibrated'].get(o['metric'], dig(p, o['metric']) if '+' in o['metric'] else None)
                                if before is None:  # not a headline number: predict it uncalibrated
                                    q, _ = run(cli, ['predict'], tmp, json.dumps(o['scenario']))
                                    before = dig(q, o['metric']) if q else None
                            eb, ea = err(before, o['expected']), err(after, o['expected'])
                        w = 1.0 / len(picks)
                        g = per_group[group]
                        g[0].append((eb, w))
                        g[1].append((ea, w))
                        if a.rows:
                            print(f'  {o["id"]:60s} cal={m["id"][:30]:30s} before {eb:6.1f}% after {ea:6.1f}%')
                    per_group[group][2] += 1
            wmean = lambda xs: sum(e * w for e, w in xs) / sum(w for _, w in xs) if xs else float('nan')
            allb = [x for g in per_group.values() for x in g[0]]
            alla = [x for g in per_group.values() for x in g[1]]
            total_before += allb
            total_after += alla
            print(f'{name:26s} {sum(w for _, w in allb):7.0f} scored  before {wmean(allb):6.1f}%  after {wmean(alla):6.1f}%'
                  + (f'  ({refused} calibrations refused)' if refused else ''))
            for group, (b, af, k) in sorted(per_group.items()):
                print(f'    {group[:60]:60s} {sum(w for _, w in b):6.0f}  before {wmean(b):6.1f}%  after {wmean(af):6.1f}%')
    if total_before:
        wmean = lambda xs: sum(e * w for e, w in xs) / sum(w for _, w in xs)
        print(f'{"all":26s} {sum(w for _, w in total_before):7.0f} scored  before {wmean(total_before):6.1f}%  '
              f'after {wmean(total_after):6.1f}%')
    return 0


if __name__ == '__main__':
    sys.exit(main())
