#include "predict/predict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "base/math.h"

namespace optimus {

namespace {

MemoryReport report(const MemoryBreakdown& b, const DeviceSpec& dev) {
  MemoryReport r;
  r.per_device = b;
  r.capacity = dev.hbm_capacity;
  r.fits = b.total().value <= dev.hbm_capacity.value;
  return r;
}

constexpr double kJoulesPerMwh = 3.6e9;

// A footprint that fits the device's capacity but not beside the runtime's own memory: the
// prediction stands (the footprint is the model's, and within its own error of a few percent a
// published recipe can sit there: NVIDIA's Llama 3.1 405B on 512 H100 leaves 0.8 GiB), and a
// warning says the job may run out of memory (runtime_reserve, memory/footprint.h).
void warn_little_headroom(const std::optional<MemoryReport>& r, const char* what, std::int64_t devices,
                          const std::string& remedies, std::vector<Warning>& warnings) {
  if (!r || !r->fits) return;
  if (auto w = little_headroom_warning(what, r->per_device.total(), r->capacity, devices, remedies))
    warnings.push_back(*w);
}

double idle_power_w(const DevicePower& pw) { return pw.tdp_w * pw.idle_fraction; }

double power_at(const DevicePower& pw, const ActivityShares& a) {
  return device_power_w(pw.tdp_w, pw.idle_fraction, pw.memory_activity, pw.communication_activity, a);
}

// A training step's time by what bounds it, the device's mix of work.
ActivityShares training_shares(const TrainingPrediction& t) {
  return {t.by_bound.compute.value, t.by_bound.memory.value, t.by_bound.communication.value,
          t.by_bound.other.value};
}

// What the elapsed time depends on besides the work: the checkpoint and the job's failure rate.
// checkpoint_s: the time one save blocks training; write_s: its write to storage (the same for a
// blocking save; after the copy to host memory, overlapped with training, for an asynchronous one).
struct RunSetup {
  double checkpoint_bytes = 0, checkpoint_s = 0, write_s = 0, job_mtbf_s = 0;
};

// A job of n devices at `rate` failures per device-hour fails every 1 / (rate n) hours; 0 = none.
double job_mtbf_s(double rate, std::int64_t devices) {
  // A rate so small that the mean time overflows (a denormal per device-hour) is no failures.
  const double mtbf = rate > 0 ? 3600.0 / (rate * static_cast<double>(devices)) : 0.0;
  return std::isfinite(mtbf) ? mtbf : 0.0;
}

// Device-to-host copy rate of a system that states none: PCIe 3.0 x16 (8 GT/s x 16 lanes,
// 128b/130b = 15.75 GB/s per direction), the slowest host link of the presets. ASSUMED.
constexpr double kDefaultHostLinkBytesPerS = 15.75e9;

RunSetup run_setup(const Scenario& s, const ParamCounts& params) {
  const SystemSpec& sys = s.system;
  const SystemOperations& ops = sys.operations;
  const ParallelPlan& p = s.parallel;
  RunSetup r;
  // Checkpoint: the 16-bit weights, the fp32 master copy and the optimizer state of the whole
  // model, one copy (Megatron-Core distributed checkpointing writes each shard once: with the
  // distributed optimizer, ZeRO >= 1, every data-parallel rank writes its part of the state;
  // without it one replica's ranks write).
  const SoftwareDefaults& sw = sys.software;
  r.checkpoint_bytes = params.total * (sw.weight_bytes + sw.master_weight_bytes + sw.optimizer_state_bytes);
  // Under hybrid sharding one shard group's ranks hold the whole state, and they write it.
  const std::int64_t writers = p.zero_stage >= 1 ? s.num_devices / zero_replicas(p) : p.tp * p.pp * p.cp;
  const double nodes_writing =
      ceil_div(static_cast<double>(writers), static_cast<double>(sys.devices_per_node));
  double bw = nodes_writing * ops.checkpoint_write_per_node.value;
  if (ops.checkpoint_write_total.value > 0) bw = std::min(bw, ops.checkpoint_write_total.value);
  r.write_s = r.checkpoint_bytes / bw;
  r.checkpoint_s = r.write_s;
  if (ops.checkpoint_async) {
    // Asynchronous save (Megatron-Core dist_checkpointing async_save; PyTorch DCP async_save): each
    // writing rank stages its part of the state in host memory, all of them at once over their
    // own host links, and training resumes while a background process writes it to storage.
    const double host = sys.host_link.value > 0 ? sys.host_link.value : kDefaultHostLinkBytesPerS;
    r.checkpoint_s = r.checkpoint_bytes / static_cast<double>(writers) / host;
  }
  r.job_mtbf_s = job_mtbf_s(ops.failure_rate(), s.num_devices);
  return r;
}

RunInputs run_inputs(const Scenario& s, const RunSetup& setup, double ideal_s) {
  RunInputs in;
  in.ideal_s = ideal_s;
  in.checkpoint_s = setup.checkpoint_s;
  if (s.system.operations.checkpoint_async) in.checkpoint_persist_s = setup.write_s;
  in.job_mtbf_s = setup.job_mtbf_s;
  in.restart_s = s.system.operations.restart.value;
  in.interval_s = s.training->checkpoint_interval_s;
  in.efficiency = s.system.operations.production_efficiency.value_or(1.0);
  return in;
}

// The scenario training at a batch ramp step's global batch, or the error that batch meets.
Result<Scenario> at_ramp_batch(const Scenario& s, std::size_t index) {
  Scenario at = s;
  const std::int64_t global_batch = s.training->batch_ramp[index].global_batch;
  at.training->global_batch = global_batch;
  at.inference.reset();
  if (auto err = validate_plan(at)) {
    err->path = "/training/batch_ramp/" + std::to_string(index) + "/1";
    err->code = "run.ramp_batch_invalid";
    err->message = "the batch ramp's global_batch " + std::to_string(global_batch) +
                   " does not fit the layout: " + err->message;
    return *err;
  }
  return at;
}

}  // namespace

Scenario stage_workload(const Scenario& s, std::size_t index) {
  Scenario at = s;
  const TrainingStage& st = s.training->stages[index];
  TrainingWorkload& w = *at.training;
  if (st.seq_len > 0) w.seq_len = st.seq_len;
  if (st.global_batch > 0) w.global_batch = st.global_batch;
  w.train_tokens = st.tokens;
  w.batch_ramp.clear();
  w.stages.clear();
  at.inference.reset();
  return at;
}

namespace {

// The scenario training a later stage (training.stages[index]): its tokens, sequence length,
// batch and layout keys, or the error that layout meets (path under the stage).
Result<Scenario> at_stage(const Scenario& s, std::size_t index) {
  Scenario at = stage_workload(s, index);
  const TrainingStage& st = s.training->stages[index];
  ParallelPlan& p = at.parallel;
  const std::string path = "/training/stages/" + std::to_string(index);
  const auto fail = [&](const std::string& where, const std::string& why) -> Result<Scenario> {
    return make_error("run.stage_invalid", path + where, "stage " + std::to_string(index) + ": " + why);
  };
  if (st.auto_layout) {
    // The search's layout for the stage (search/auto_layout.h); a caller of the engine that did not
    // resolve it gets an error rather than the scenario's layout.
    if (!st.plan)
      return fail(
          "/parallel",
          "parallel \"auto\" was not resolved (search/auto_layout.h resolve_parallel_auto resolves it)");
    p = *st.plan;
  }
  if (st.tp) {
    // Sequence parallelism follows tp as the scenario reader's default does.
    // (kept off when the scenario turned it off on a tp > 1 layout).
    p.sequence_parallel = (p.sequence_parallel || p.tp == 1) && *st.tp > 1;
    p.tp = *st.tp;
  }
  if (st.pp) p.pp = *st.pp;
  if (st.cp) p.cp = *st.cp;
  if (st.micro_batch) p.micro_batch = *st.micro_batch;
  if (st.interleave) p.interleave = *st.interleave;
  if (st.recompute) p.recompute = *st.recompute;
  if (st.dp) {
    p.dp = *st.dp;
  } else if (st.tp || st.pp || st.cp) {
    const std::int64_t model = p.tp * p.pp * p.cp;
    if (s.num_devices % model != 0)
      return fail("/parallel", "tp x pp x cp = " + std::to_string(model) +
                                   " does not divide num_devices = " + std::to_string(s.num_devices));
    p.dp = s.num_devices / model;
  }
  if (auto err = validate_plan(at)) {
    const bool batch = err->path.rfind("/training", 0) == 0;
    return fail(batch ? "/global_batch" : "/parallel", err->code + ": " + err->message);
  }
  return at;
}

// Energy and price of an output token at `tokens_per_s_per_device`, for a device drawing at the
// mix `shares`.
TokenCost token_cost(const Scenario& s, const ActivityShares& shares, double tokens_per_s_per_device) {
  const SystemSpec& sys = s.system;
  TokenCost c;
  c.device_power_w = power_at(sys.device.power, shares);
  const double watts =
      (c.device_power_w + sys.operations.node_overhead_w / static_cast<double>(sys.devices_per_node)) *
      s.economics.pue;
  if (tokens_per_s_per_device > 0 && watts > 0) {
    c.joules_per_token = watts / tokens_per_s_per_device;
    c.tokens_per_joule = tokens_per_s_per_device / watts;
  }
  const double rate = usd_per_device_hour(s.economics, sys.device.power.price_usd);
  if (rate > 0 && tokens_per_s_per_device > 0) {
    double usd_per_s = rate / 3600.0;
    if (capital_form(s.economics)) usd_per_s += watts / 1000.0 / 3600.0 * s.economics.usd_per_kwh;
    c.usd_per_million_tokens = usd_per_s / tokens_per_s_per_device * 1e6;
  }
  return c;
}

// Shares of a request's time (one prefill, output_len - 1 decode steps) in compute-bound kernels,
// memory-bound ones (memory, L2, latency and host bound) and communication, from the operator
// report (one prefill step and one mid-generation decode step).
ActivityShares inference_shares(const InferencePrediction& i, std::int64_t output_len) {
  ActivityShares a;
  const double decode_steps = static_cast<double>(output_len - 1);
  for (const OperatorReport& o : i.operators) {
    const double secs = o.time.value * o.count * (o.phase == "decode" ? decode_steps : 1.0);
    if (o.bound == Bound::compute)
      a.compute += secs;
    else
      a.memory += secs;
  }
  a.communication = i.prefill_comm.value + i.decode_comm.value * decode_steps;
  return a;
}

// The served stream's mix of compute-bound, memory-bound and communication time: the operator
// report of the stream's own batch (its mean running batch per replica, its mean lengths, CUDA
// graphs as the serving steps run), not the static `inference.batch`, which the stream does not use
// (a probe found serving's device power move 435 -> 565 W with the static batch 1 -> 512 at the same
// served rate).
ActivityShares serving_shares(const Scenario& is, const ServingPrediction& served) {
  Scenario v = is;
  InferenceWorkload& w = *v.inference;
  const ServingSpec& sv = *w.serving;
  w.batch = std::max<std::int64_t>(1, std::llround(served.mean_batch));
  w.prompt_len = std::max<std::int64_t>(1, std::llround(sv.input_len.expected()));
  w.output_len = std::max<std::int64_t>(1, std::llround(sv.output_len.expected()));
  w.cuda_graphs = true;
  w.serving.reset();
  std::vector<Warning> ignored;  // the view's own warnings repeat the scenario's
  return inference_shares(predict_inference(v, ignored), w.output_len);
}

std::optional<Error> check_run(const Scenario& s, const ParamCounts& params) {
  if (!s.training || !(s.training->train_tokens > 0)) return std::nullopt;
  const TrainingWorkload& w = *s.training;
  auto steps = ramp_steps(w.train_tokens, w.seq_len, w.global_batch, w.batch_ramp);
  if (!steps) return steps.error();
  if (auto err = check_run_layout(s)) return err;
  // Whether the run progresses depends on its work only where an interval is longer than it (one
  // save at the end, run_time); here, before the step is timed, the work is its floor, the model's
  // 6 x active parameters x tokens at the devices' peak (Kaplan et al. 2020): never longer than the
  // predicted work, so a run refused here is refused by the prediction too.
  const double peak = math_rate(s.system.device, w.precision).rate.value * d(s.num_devices);
  const double floor_s = peak > 0 ? 6.0 * params.active * w.train_tokens / peak : 0.0;
  auto rt = run_time(run_inputs(s, run_setup(s, params), floor_s));
  if (!rt) return rt.error();
  return std::nullopt;
}

// The tokens `steps` whole global batches train: a framework trains a last batch whole, so a run of
// 1 token trains one batch, and its cost per million tokens is that batch's, not a million times it.
double batch_tokens(double steps, std::int64_t global_batch, std::int64_t seq_len) {
  return steps * d(global_batch) * d(seq_len);
}

// Later stages: each on its own sequence length, batch and layout. Adds each stage's steps and time
// to r, its devices' draw times its time to power_time (the devices' mean draw is weighted by each
// part's time) and its tokens to tokens.
std::optional<Error> add_stages(const Scenario& s, RunReport& r, double& power_time, double& tokens,
                                std::vector<Warning>& warnings) {
  const TrainingWorkload& w = *s.training;
  const SystemSpec& sys = s.system;
  const DevicePower& pw = sys.device.power;
  for (std::size_t i = 0; i < w.stages.size(); ++i) {
    auto at = at_stage(s, i);
    if (!at) return at.error();
    const TrainingWorkload& aw = *at->training;
    const ModelGraph g = model_graph(at->model, training_layer_shape(*at, training_attention(*at)));
    std::vector<Warning> ignored;
    const TrainingPrediction tp = predict_training(*at, g, ignored);
    StageReport st;
    st.tokens = aw.train_tokens;
    st.seq_len = aw.seq_len;
    st.global_batch = aw.global_batch;
    st.parallel = at->parallel;
    st.steps = ramp_steps(aw.train_tokens, aw.seq_len, aw.global_batch, {})->steps;  // no ramp: no error
    st.iteration_s = tp.iteration_time.value;
    st.tokens_per_s = tp.tokens_per_s;
    st.mfu = tp.mfu;
    st.ideal_s = static_cast<double>(st.steps) * tp.iteration_time.value;  // whole steps, as the main part's
    st.memory_bytes = training_memory(*at, g).total().value;
    st.fits = st.memory_bytes <= sys.device.hbm_capacity.value;
    if (!st.fits)
      warnings.push_back({"run.stage_does_not_fit", "training.stages[" + std::to_string(i) + "] needs " +
                                                        gib_text(Bytes(st.memory_bytes)) + " per device; " +
                                                        sys.device.name + " has " +
                                                        gib_text(sys.device.hbm_capacity)});
    r.steps += st.steps;
    r.ideal_s += st.ideal_s;
    power_time += power_at(pw, training_shares(tp)) * st.ideal_s;
    tokens += batch_tokens(d(st.steps), st.global_batch, st.seq_len);
    r.stages.push_back(st);
  }
  return std::nullopt;
}

// The run's energy, cost and CO2 from its elapsed time and losses (r), the devices' draw times the
// time of the steps (power_time) and the tokens trained.
void add_energy_and_cost(const Scenario& s, const TrainingPrediction& t, double power_time, double tokens,
                         RunReport& r, std::vector<Warning>& warnings) {
  const SystemSpec& sys = s.system;
  const DevicePower& pw = sys.device.power;
  const SystemOperations& ops = sys.operations;
  const Economics& econ = s.economics;
  const double n = static_cast<double>(s.num_devices);
  // Energy: devices at the training mix while they compute (redone work included: the run's
  // steps again), at the idle floor while they write checkpoints or wait for a restart; the
  // production shortfall (operations.production_efficiency: the same steps taking longer, for
  // stragglers, data stalls, slow collectives) adds time but no math, so it is drawn at a device
  // waiting in a collective: the idle floor plus communication_activity of the dynamic range
  // (ASSUMED; device_power_w's weights), where it had been billed at the full training mix. The
  // node's other parts for the whole elapsed time; the facility's PUE on top (The Green Grid,
  // PUE: a comprehensive examination of the metric, 2012: total facility energy / IT equipment
  // energy).
  r.device_power_w = r.ideal_s > 0 ? power_time / r.ideal_s : power_at(pw, training_shares(t));
  const double waiting_w = power_at(pw, ActivityShares{0, 0, 1, 0});
  const double device_j =
      n * (r.device_power_w * (r.ideal_s + r.lost.lost_work) + waiting_w * r.lost.production +
           idle_power_w(pw) * (r.lost.checkpoint_writes + r.lost.restarts));
  const double nodes = ceil_div(n, static_cast<double>(sys.devices_per_node));
  const double node_j = nodes * ops.node_overhead_w * r.wall_s;
  r.device_energy_mwh = device_j / kJoulesPerMwh;
  r.energy_mwh = (device_j + node_j) * econ.pue / kJoulesPerMwh;
  if (pw.tdp_w <= 0)
    warnings.push_back({"run.no_power", "the device states no power.tdp_W, so the run's energy is 0"});

  r.usd_per_device_hour = usd_per_device_hour(econ, pw.price_usd);
  r.cost_usd = cost_usd(econ, pw.price_usd, r.gpu_hours, r.energy_mwh);
  if (r.cost_usd)
    r.usd_per_million_tokens = *r.cost_usd / tokens * 1e6;
  else
    warnings.push_back(no_price_warning("run"));
  if (econ.grid_kg_co2_per_kwh > 0) r.co2_t = r.energy_mwh * 1000.0 * econ.grid_kg_co2_per_kwh / 1000.0;
}

}  // namespace

// The whole run (run/run.h) from one iteration's prediction.
Result<RunReport> plan_run(const Scenario& s, const TrainingPrediction& t, const ParamCounts& params,
                           std::vector<Warning>& warnings) {
  const TrainingWorkload& w = *s.training;
  const SystemSpec& sys = s.system;
  const DevicePower& pw = sys.device.power;
  const SystemOperations& ops = sys.operations;
  const double n = static_cast<double>(s.num_devices);
  RunReport r;

  auto steps = ramp_steps(w.train_tokens, w.seq_len, w.global_batch, w.batch_ramp);
  if (!steps) return steps.error();
  r.steps = steps->steps;
  // Whole steps, as run.steps counts them (a framework trains a last global batch whole): the
  // tokens at the step's rate had made a run of one step 56 s long take 13.5 s (a probe's finding).
  const auto whole_steps = [&](double tokens, std::int64_t global_batch) {
    return ceil_div(tokens, static_cast<double>(global_batch) * static_cast<double>(w.seq_len));
  };
  const double steady_steps = whole_steps(steps->steady_tokens, w.global_batch);
  r.ideal_s = steady_steps * t.iteration_time.value;
  double tokens = batch_tokens(steady_steps, w.global_batch, w.seq_len);
  for (std::size_t i = 0; i < w.batch_ramp.size(); ++i) {
    const RampStep& step = w.batch_ramp[i];
    auto at = at_ramp_batch(s, i);
    if (!at) return at.error();
    std::vector<Warning> ignored;
    const double it = predict_training(*at, ignored).iteration_time.value;
    const double ramp_steps_at = whole_steps(step.tokens, step.global_batch);
    r.ideal_s += ramp_steps_at * it;
    tokens += batch_tokens(ramp_steps_at, step.global_batch, w.seq_len);
  }
  double power_time = power_at(pw, training_shares(t)) * r.ideal_s;
  // Later stages: each on its own sequence length, batch and layout.
  if (auto err = add_stages(s, r, power_time, tokens, warnings)) return *err;

  const RunSetup setup = run_setup(s, params);
  r.checkpoint_bytes = setup.checkpoint_bytes;
  r.checkpoint_s = setup.checkpoint_s;
  r.job_mtbf_s = setup.job_mtbf_s;
  const RunInputs inputs = run_inputs(s, setup, r.ideal_s);
  auto rt = run_time(inputs);
  if (!rt) return rt.error();
  if (ops.production_efficiency)
    warnings.push_back({"run.production_efficiency",
                        "system.operations.production_efficiency " +
                            std::to_string(*ops.production_efficiency) +
                            " is stated: the steps take the modelled time over it (" +
                            std::to_string(rt->lost.production / 3600.0 * n) +
                            " device-hours more); the run's failures and checkpoints are modelled "
                            "apart, and no preset states such a share"});
  if (!ops.failures_per_device_hour) {
    // Nothing known about failures: the point estimate takes none, the band reaches the run at the
    // highest published rate (run/run.h). A rate that leaves no progress leaves the band as it is.
    RunInputs worst = inputs;
    worst.job_mtbf_s = job_mtbf_s(kHighestPublishedFailuresPerDeviceHour, s.num_devices);
    if (auto wr = run_time(worst); wr && rt->wall_s > 0) {
      r.unknown_failures_high = wr->wall_s / rt->wall_s;
      warnings.push_back({"run.failure_rate_unknown",
                          "the system states no operations.failures_per_device_hour: the run is "
                          "predicted without failures, and its band reaches the run at the highest "
                          "published rate (7.35e-5 per device-hour, OPT-175B): x" +
                              std::to_string(r.unknown_failures_high) + " the elapsed time"});
    }
  }
  r.checkpoint_write_s = setup.write_s;
  r.wall_s = rt->wall_s;
  r.goodput = rt->goodput;
  r.checkpoint_interval_s = rt->interval_s;
  r.expected_failures = rt->expected_failures;
  r.lost = rt->lost;
  r.gpu_hours = n * r.wall_s / 3600.0;

  add_energy_and_cost(s, t, power_time, tokens, r, warnings);
  return r;
}

StepEnergyCost training_step_energy_cost(const Scenario& s, const TrainingPrediction& t) {
  const SystemSpec& sys = s.system;
  const double n = static_cast<double>(s.num_devices);
  const double secs = t.iteration_time.value;
  const double nodes = ceil_div(n, static_cast<double>(sys.devices_per_node));
  StepEnergyCost out;
  out.energy_j =
      (n * power_at(sys.device.power, training_shares(t)) + nodes * sys.operations.node_overhead_w) * secs *
      s.economics.pue;
  // Without a price no step has a cost (a search refuses to rank by one: search.rank_without_price).
  out.cost_usd =
      cost_usd(s.economics, sys.device.power.price_usd, n * secs / 3600.0, out.energy_j / kJoulesPerMwh);
  return out;
}

std::optional<Error> check_run_layout(const Scenario& s) {
  if (!s.training || !(s.training->train_tokens > 0)) return std::nullopt;
  for (std::size_t i = 0; i < s.training->batch_ramp.size(); ++i)
    if (auto at = at_ramp_batch(s, i); !at) return at.error();
  for (std::size_t i = 0; i < s.training->stages.size(); ++i)
    if (auto at = at_stage(s, i); !at) return at.error();
  return std::nullopt;
}

std::optional<Error> check_run(const Scenario& s) {
  if (!s.training || !(s.training->train_tokens > 0)) return std::nullopt;
  return check_run(s, count_params(s.model, s.training->seq_len));
}

namespace {

// Sequences longer than the model's context (model.max_seq_len, when known): costed like any
// others, but a runtime built for that context refuses them (vLLM's max_model_len check,
// TensorRT-LLM's max_seq_len), and rotary models are trained up to it. Published benchmarks do run
// past it (TensorRT-LLM v0.6.1's GPT-J 6B at 2,048 + 2,048 tokens), so it is a warning.
void warn_beyond_context(const Scenario& s, std::vector<Warning>& warnings) {
  const InferenceWorkload& w = *s.inference;
  std::int64_t longest = w.prompt_len + w.output_len;
  if (w.serving)
    longest = std::max(longest, w.serving->input_len.largest() + w.serving->output_len.largest());
  if (s.model.max_seq_len <= 0 || longest <= s.model.max_seq_len) return;
  warnings.push_back({"inference.beyond_context",
                      "the longest prompt + output (" + std::to_string(longest) + " tokens) exceeds " +
                          model_label(s.model) + "'s context of " + std::to_string(s.model.max_seq_len) +
                          " tokens (model.max_seq_len): the positions beyond it are costed like any others, "
                          "while a runtime built for that context refuses such requests"});
}

// Training sequences longer than the model's context: the positions are costed like any others,
// but a rotary model trained past the context it was built for needs its positions extended
// (RoPE scaling: a context-extension stage), which nothing here models.
void warn_training_beyond_context(const Scenario& s, std::vector<Warning>& warnings) {
  const std::int64_t seq = s.training->seq_len;
  if (s.model.max_seq_len <= 0 || seq <= s.model.max_seq_len) return;
  warnings.push_back({"training.beyond_context",
                      "seq_len " + std::to_string(seq) + " exceeds " + model_label(s.model) +
                          "'s context of " + std::to_string(s.model.max_seq_len) +
                          " tokens (model.max_seq_len): costed like any other positions; training past it "
                          "is a context extension (RoPE scaling), which the model as stated does not have"});
}

// A serving simulation under a software profile that states no scheduler (a training stack's, or
// FasterTransformer's static runtime): the profile's kernels apply, and the scheduler keys that
// inference.serving leaves out take the engine's defaults (ServingSpec), which the warning states.
void warn_profile_not_serving(const Scenario& s, std::vector<Warning>& warnings) {
  if (!s.inference->serving || !s.software || s.software->schedules) return;
  warnings.push_back({"inference.profile_not_serving",
                      not_serving_words("software '" + s.software->id + "'", *s.inference->serving)});
}

// No precision stated for a model whose checkpoint is published in a narrower format: the weights
// are served as published (model.checkpoint_precision), as the runtimes load such a checkpoint
// (vLLM and SGLang read its quantization_config and run the block-scaled FP8 kernels).
void warn_checkpoint_precision(const Scenario& s, std::vector<Warning>& warnings) {
  const InferenceWorkload& w = *s.inference;
  if (!w.precision_from_checkpoint) return;
  warnings.push_back(
      {"inference.checkpoint_precision",
       "no precision stated: " + model_label(s.model) +
           "'s weights are served as its checkpoint publishes them, " +
           served_as_published(s.model, w.precision, w.fp8_block_scaled) +
           " (model.checkpoint_precision); state inference.precision to serve them otherwise"});
}

}  // namespace

// The assumptions an "mtp" draft rests on unless stated (`key` names the block):
// speculative.mtp_not_native, a model whose checkpoint ships no MTP module: the head is costed as
// one would be (one layer on the target's embedding and LM head), at the acceptance rate stated
// or DeepSeek-V3's measured 0.85 for its own jointly trained module, which a head trained
// afterwards (EAGLE-style) need not reach. speculative.decay_assumed, more drafted tokens than the
// checkpoint's modules: the positions past them reuse the last module at the decay fitted on
// DeepSeek-V3-0324's (kMtpReuseDecay), the largest single assumption of the step's token count.
void warn_mtp_assumptions(const ModelSpec& model, const std::optional<Speculative>& sp,
                          const std::string& key, std::vector<Warning>& warnings) {
  if (!sp || sp->draft) return;
  const std::string name = model_label(model);
  const auto fmt = [](double x) {
    char b[16];
    std::snprintf(b, sizeof b, "%.2f", x);
    return std::string(b);
  };
  if (model.mtp_layers <= 0)
    warnings.push_back(
        {"speculative.mtp_not_native",
         name + " ships no multi-token-prediction module (model.mtp_layers 0): the mtp draft of " + key +
             " is costed as a one-layer head on the target, accepted at " + fmt(sp->acceptance_rate) +
             " per token, a rate measured for DeepSeek-V3's own module; state acceptance_rate "
             "for the head you would run"});
  const std::int64_t own = speculative_own_positions(*sp, model.mtp_layers);
  if (sp->acceptance_decay || sp->draft_tokens <= own) return;
  std::string by_position;
  for (const double a : speculative_acceptance(*sp, model.mtp_layers))
    by_position += (by_position.empty() ? "" : ", ") + fmt(a);
  Speculative independent = *sp;
  independent.acceptance_decay = 1.0;
  const std::string who =
      model.mtp_layers > 0 ? name + "'s " + std::to_string(own) + (own > 1 ? " MTP modules" : " MTP module")
                           : "the one MTP head costed for " + name;
  // One format call: the first-load engine keeps no chain of string concatenations for it.
  char text[640];
  std::snprintf(text, sizeof text,
                "%s drafts %lld tokens a step with %s: the positions past them reuse the "
                "last one, assumed accepted less at each (%s given those before; a decay of %.2f a position, "
                "fitted on DeepSeek-V3-0324's module): %.2f tokens a step, %.2f if every position kept the "
                "first's rate. State acceptance_decay (1: independent positions) from the engine's "
                "per-position acceptance",
                key.c_str(), static_cast<long long>(sp->draft_tokens), who.c_str(), by_position.c_str(),
                kMtpReuseDecay, speculative_tokens_per_step(*sp, model.mtp_layers),
                speculative_tokens_per_step(independent, model.mtp_layers));
  warnings.push_back({"speculative.decay_assumed", text});
}

Result<Prediction> predict(const Scenario& s) {
  if (auto err = validate_plan(s)) return *err;
  Prediction out;
  const DeviceSpec& dev = s.system.device;
  // Learned position tables are as long as the sequences the workload runs.
  const std::int64_t positions =
      s.training
          ? s.training->seq_len
          : std::max<std::int64_t>(s.model.max_seq_len, s.inference->prompt_len + s.inference->output_len);
  out.params = count_params(s.model, positions);
  // The whole run's errors come before any time is computed (validate reports them the same way).
  if (auto err = check_run(s, out.params)) return *err;
  if (s.calibration && !s.calibration->applied)
    out.warnings.push_back(
        {"calibration.not_applicable", s.calibration->not_applicable + "; the prediction is uncalibrated"});
  if (s.training) {
    const AttentionKernel att = training_attention(s);
    const ModelGraph g = model_graph(s.model, training_layer_shape(s, att));
    warn_training_beyond_context(s, out.warnings);
    if (s.model.mtp_layers > 0 && !s.training->mtp_layers)
      out.warnings.push_back(
          {"training.mtp_not_trained",
           model_label(s.model) + " ships " + std::to_string(s.model.mtp_layers) +
               (s.model.mtp_layers > 1 ? " multi-token-prediction modules"
                                       : " multi-token-prediction module") +
               " that this step does not train (training.mtp_layers absent: 0, as in fine-tuning); a "
               "pretraining run that trains them, as DeepSeek-V3's did, states training.mtp_layers"});
    out.training = predict_training(s, g, out.warnings, nullptr, true);
    out.training_memory = report(training_memory(s, g), dev);
    if (s.training->train_tokens > 0) {
      auto run = plan_run(s, *out.training, out.params, out.warnings);
      if (!run) return run.error();
      out.run = std::move(*run);
      // The tokens at the steps the run takes them at: a batch ramp's and the stages' too (the
      // steady step's rate alone said 309.7 days beside the run's 324.1 for one ramp).
      out.training->time_to_train = Seconds(out.run->ideal_s);
    }
  }
  if (s.inference) {
    const Scenario is = inference_view(s);  // a training layout's cp folded into the replicas
    warn_mtp_assumptions(s.model, s.inference->speculative, "inference.speculative", out.warnings);
    warn_beyond_context(s, out.warnings);
    warn_checkpoint_precision(s, out.warnings);
    warn_profile_not_serving(s, out.warnings);
    out.inference = predict_inference(is, out.warnings);
    out.inference_memory = report(inference_memory(is).bytes, dev);
    if (s.inference->serving) {
      auto served = predict_serving(is, out.warnings);
      if (!served) return served.error();
      out.serving = std::move(*served);
    }
    const ActivityShares shares = inference_shares(*out.inference, s.inference->output_len);
    const double replica = static_cast<double>(s.parallel.tp * s.parallel.pp);
    out.inference_cost = token_cost(s, shares, out.inference->throughput_tokens_per_s / replica);
    if (out.serving)
      out.serving_cost =
          token_cost(s, serving_shares(is, *out.serving), out.serving->output_tokens_per_s_per_gpu);
  }
  // The headline memory is the training footprint when training is asked, else inference.
  out.memory = out.training_memory ? *out.training_memory : *out.inference_memory;
  const auto check = [&](const std::optional<MemoryReport>& r, const char* what,
                         const std::string& remedies) {
    if (r && !r->fits)
      out.warnings.push_back(
          {"memory.does_not_fit",
           std::string(what) + " needs " + gib_text(r->per_device.total()) + " per device" +
               (r->per_device.stage >= 0 ? " (pipeline stage " + std::to_string(r->per_device.stage + 1) +
                                               " of " + std::to_string(s.parallel.pp) + ", the heaviest)"
                                         : "") +
               " but " + dev.name + " has " + gib_text(r->capacity) + "; " + remedies + " would reduce it"});
  };
  // Training: the remedies this layout has left (a ZeRO stage it does not use yet; activation
  // offloading where Megatron-Core allows it: pp 1, no recompute, a host link).
  const auto& p = s.parallel;
  std::string training = "more tensor/pipeline parallelism, recomputation";
  if (p.zero_stage < 3)
    training += p.zero_stage == 0 ? ", ZeRO (zero_stage 0 keeps the whole optimizer state on every "
                                    "data-parallel rank; NVIDIA's recipes use 1)"
                                  : ", a higher ZeRO stage";
  if (p.zero_stage == 3 && !s.system.software.zero3_reshard_after_forward)
    training +=
        ", releasing each layer's gathered weights after its forward "
        "(system.software.zero3_reshard_after_forward true)";
  if (p.pp == 1 && p.recompute == Recompute::none && s.system.host_link.value > 0)
    training += ", activation offloading (parallel.offload_layers)";
  if (!p.optimizer_offload && s.system.host_link.value > 0)
    training += ", the optimizer state in host memory (parallel.optimizer_offload)";
  check(out.training_memory, "training", training);
  // Inference: where the working activations of every prompt at once outweigh the weights and the
  // KV cache, a runtime that prefills in token-budget steps holds one step's (memory/footprint.h).
  std::string inference = "a smaller batch, more tensor/pipeline parallelism or a narrower precision";
  if (const auto& m = out.inference_memory; m && !(s.software && s.software->prefills_in_steps())) {
    const MemoryBreakdown& b = m->per_device;
    if (b.activations > b.weights && b.activations > b.kv_cache)
      inference =
          "a smaller batch, a runtime that prefills in steps of at most max_num_tokens tokens "
          "(software \"vllm\", \"sglang\" or \"tensorrt-llm-pytorch\": one step's activations, not every "
          "prompt's at once), more tensor/pipeline parallelism or a narrower precision";
  }
  check(out.inference_memory, "inference", inference);
  warn_little_headroom(out.training_memory, "training", s.num_devices, "a smaller micro-batch, " + training,
                       out.warnings);
  // A served stream's cache is sized to what is left (inference.serving.gpu_memory_utilization),
  // so only a static batch is checked.
  if (s.inference && !s.inference->serving)
    warn_little_headroom(out.inference_memory, "inference", s.num_devices,
                         "a smaller batch, more tensor/pipeline parallelism or a narrower precision",
                         out.warnings);
  return out;
}

}  // namespace optimus
