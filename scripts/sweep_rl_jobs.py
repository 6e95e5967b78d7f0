#!/usr/bin/env python3
"""Runs RL jobs written the way a published run is written (a model preset, a system preset, a
device count, the step's prompts and lengths, a placement, the trainer's layout absent or "auto")
over a grid of models, systems and sizes, and counts what the engine answers: predictions, refusals
by error code, and the warnings. A robustness aid for docs/rl.md (Trainer offload): a job that
really ran must not be refused, and a trainer that does not fit must not be predicted silently.
Nothing is fitted or compared with a measurement here.

usage: scripts/sweep_rl_jobs.py [--cli PATH] [--list]
"""
import json, random, subprocess
from collections import Counter

from fitlib import ScriptParser

MODELS = {  # model preset -> device counts
    'llama3.1-8b': [8, 16, 32], 'qwen3-8b': [8, 16, 64], 'qwen3-32b': [16, 32, 64],
    'qwen3-30b-a3b': [8, 16, 32, 64], 'qwen3-235b-a22b': [32, 64, 128], 'deepseek-v3': [128, 256, 512],
    'llama3.1-70b': [16, 32, 64], 'gpt-oss-120b': [16, 32, 64], 'kimi-k2': [256, 512],
    'llama4-scout': [16, 32, 64], 'deepseek-r1': [128, 256],
}
SYSTEMS = ['dgx-h100', 'gb200-nvl72', 'dgx-b200', 'hgx-h800', 'gb300-nvl72', 'dgx-h200']
LENGTHS = [('limit', 2048, 8192), ('mean', 1024, {'mean': 3000, 'max': 16384})]


def jobs():
    rng = random.Random(1)  # half the jobs state train "auto", the same half every run
    for model, sizes in MODELS.items():
        for system in SYSTEMS:
            for n in sizes:
                for placement, staleness in [('colocated', 0), ('split', 0), ('split', 1)]:
                    for _, prompt, response in LENGTHS:
                        rl = {'prompts_per_step': 128 if n <= 64 else 512, 'samples_per_prompt': 8,
                              'prompt_len': prompt, 'response_len': response, 'placement': placement}
                        if placement == 'split':
                            rl['rollout_devices'] = rl['train_devices'] = n // 2
                        if staleness:
                            rl['async'] = {'staleness': staleness}
                        if rng.random() < 0.5:
                            rl['train'] = 'auto'
                        yield {'model': model, 'system': system, 'num_devices': n, 'rl': rl}


def main():
    ap = ScriptParser(__doc__)
    ap.add_argument('--list', action='store_true', help='print every refused job')
    a = ap.parse_args()
    answers, warnings, total = Counter(), Counter(), 0
    for job in jobs():
        total += 1
        out = json.loads(subprocess.run([a.cli, 'predict', '-', '--json'], input=json.dumps(job),
                                        capture_output=True, text=True).stdout)
        if 'error' in out:
            answers['refused: ' + out['error']['code']] += 1
            if a.list:
                print(job['model'], job['system'], job['num_devices'], job['rl']['placement'],
                      job['rl'].get('train', '-'), out['error']['message'])
            continue
        answers['predicted'] += 1
        # Sorted, so that codes of equal counts print in one order whatever the hash seed.
        warnings.update(sorted({w['code'] for w in out.get('warnings', [])}))
    print(f'{total} jobs')
    for k, v in answers.most_common():
        print(f'  {v:5d}  {k}')
    print('warnings among the predictions:')
    for k, v in warnings.most_common():
        print(f'  {v:5d}  {k}')


if __name__ == '__main__':
    main()
