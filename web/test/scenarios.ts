// Scenarios shared by the unit and browser tests.

/** DeepSeek-V3 pre-training on 256 GB300 (one NVL72 domain holds each ep 32 group): pp 2 x dp 128, ep 32 over the dp ranks. */
export const DEEPSEEK_V3_GB300 = {
  schema_version: 1,
  name: 'DeepSeek-V3 on 256 GB300',
  model: 'deepseek-v3',
  system: 'gb300-nvl72',
  num_devices: 256,
  parallel: { tp: 1, pp: 2, ep: 32, dp: 128, micro_batch: 1, interleave: 1, zero_stage: 1 },
  training: { global_batch: 4096, seq_len: 4096, precision: 'mxfp8' },
} as const;

/** Llama 3 8B served offline on one H100: the scenario the C++ importer tests read the vLLM
 * example result against (tests/unit/calibrate_test.cpp, kServing; tests/data/import/). */
export const LLAMA3_8B_H100_OFFLINE = {
  model: 'llama3-8b',
  system: 'dgx-h100',
  num_devices: 1,
  parallel: { tp: 1 },
  inference: { batch: 1, prompt_len: 1024, output_len: 256, serving: { arrival: 'offline', num_requests: 100, input_len: 1024, output_len: 256 } },
};
