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
