#include "hardware/uarch.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace optimus {

namespace {

constexpr double kPico = 1e-12;

std::string num(double v) {
  // Short decimal for messages and names (no locale, no trailing zeros beyond one decimal).
  const long long tenths = std::llround(v * 10.0);
  std::string s = std::to_string(tenths / 10);
  if (tenths % 10 != 0) s += "." + std::to_string(std::llabs(tenths % 10));
  return s;
}

// Alpha-power law with alpha = 2 (Sakurai and Newton 1990; DeepFlow's choice):
// f is proportional to (V - Vt)^2 / V.
double speed(double v, double vt) { return v > vt ? (v - vt) * (v - vt) / v : 0.0; }

struct Logic {
  double flops_per_cycle;
  double l2_bytes_per_flop;
  const TechnologyNode& node;
  double frequency(double v) const {
    return node.nominal_frequency_hz * speed(v, node.threshold_voltage) /
           speed(node.nominal_voltage, node.threshold_voltage);
  }
  // Dynamic energy scales with V^2 (CV^2 switching); leakage is a fixed share of it.
  double power(double v, double f) const {
    const double scale = (v / node.nominal_voltage) * (v / node.nominal_voltage);
    const double per_flop =
        (node.energy_pj_per_flop + l2_bytes_per_flop * node.sram_energy_pj_per_byte) * kPico * scale;
    return flops_per_cycle * f * per_flop * (1.0 + node.static_fraction);
  }
};

std::optional<Error> check_budget(const UarchBudget& b) {
  const auto bad = [](const char* key, const std::string& msg) {
    return Error{"uarch.invalid_budget", std::string("/") + key, msg};
  };
  if (!(b.area_mm2 > 0)) return bad("area_mm2", "area_mm2 must be positive");
  if (!(b.power_w > 0)) return bad("power_W", "power_W must be positive");
  if (b.perimeter_mm < 0) return bad("perimeter_mm", "perimeter_mm must be positive (or 0 for a square die)");
  if (!(b.compute_fraction > 0) || !(b.sram_fraction >= 0) || b.compute_fraction + b.sram_fraction > 1.0)
    return bad("compute_fraction",
               "compute_fraction must be positive and compute_fraction + sram_fraction at most 1");
  if (!(b.memory_edge_fraction > 0) || !(b.network_edge_fraction >= 0) ||
      b.memory_edge_fraction + b.network_edge_fraction > 1.0)
    return bad(
        "memory_edge_fraction",
        "memory_edge_fraction must be positive and memory_edge_fraction + network_edge_fraction at most 1");
  if (!(b.dram_power_fraction > 0) || !(b.network_power_fraction >= 0) ||
      b.dram_power_fraction + b.network_power_fraction >= 1.0)
    return bad("dram_power_fraction",
               "dram_power_fraction must be positive and dram + network power fractions below 1");
  return std::nullopt;
}

// DRAM: the stacks, their bandwidth (lowered to fit their power share) and power.
std::optional<Error> derive_dram(const DramTechnology& dram, const UarchBudget& b, double perimeter,
                                 UarchDerivation& out, double& dram_bw) {
  // DRAM: stacks along the memory share of the die edge (DeepFlow: links per mm of
  // perimeter), each bringing the generation's bandwidth and capacity.
  auto stacks = static_cast<std::int64_t>(std::floor(perimeter * b.memory_edge_fraction / dram.edge_mm));
  if (b.max_dram_stacks > 0) stacks = std::min(stacks, b.max_dram_stacks);
  if (stacks < 1)
    return Error{"uarch.no_dram_stack", "/memory_edge_fraction",
                 "the memory share of the die edge (" + num(perimeter * b.memory_edge_fraction) +
                     " mm) is narrower than one " + dram.name + " stack (" + num(dram.edge_mm) +
                     " mm); raise area_mm2, perimeter_mm or memory_edge_fraction"};
  out.dram_stacks = stacks;
  dram_bw = static_cast<double>(stacks) * dram.stack_bandwidth.value;
  out.dram_power_w = dram_bw * 8.0 * dram.energy_pj_per_bit * kPico;
  const double dram_cap = b.power_w * b.dram_power_fraction;
  if (out.dram_power_w > dram_cap) {
    // Lower the pin rate until the stacks fit their power share.
    dram_bw *= dram_cap / out.dram_power_w;
    out.dram_power_w = dram_cap;
    out.dram_throttled = true;
  }

  return std::nullopt;
}

// Network: the SerDes lanes and the scale-up and scale-out bandwidths (lowered to fit their power
// share) and power.
std::optional<Error> derive_network(const TechnologyNode& node, const UarchBudget& b, double perimeter,
                                    UarchDerivation& out) {
  // SerDes: lanes along the network share of the edge; NICs take nic_lanes more. Power
  // counts both directions of every lane.
  out.serdes_lanes =
      static_cast<std::int64_t>(std::floor(perimeter * b.network_edge_fraction * node.serdes_lanes_per_mm));
  if (out.serdes_lanes < 1)
    return Error{"uarch.no_serdes_lane", "/network_edge_fraction",
                 "the network share of the die edge (" + num(perimeter * b.network_edge_fraction) +
                     " mm) holds no SerDes lane; raise network_edge_fraction"};
  const double lane_bw = node.serdes_lane_gbps * 1e9 / 8.0;  // B/s per direction
  double up_bw = static_cast<double>(out.serdes_lanes) * lane_bw;
  double out_bw = static_cast<double>(b.nic_lanes) * lane_bw;
  out.network_power_w = (up_bw + out_bw) * 2.0 * 8.0 * node.serdes_energy_pj_per_bit * kPico;
  const double net_cap = b.power_w * b.network_power_fraction;
  if (out.network_power_w > net_cap) {
    const double k = net_cap / out.network_power_w;
    up_bw *= k;
    out_bw *= k;
    out.network_power_w = net_cap;
    out.network_throttled = true;
  }
  out.scale_up_bandwidth = Bandwidth(up_bw);
  out.scale_out_bandwidth = Bandwidth(out_bw);

  return std::nullopt;
}

// The operating point of the logic and its power: compute, SRAM and static.
void derive_operating_point(const TechnologyNode& node, const UarchBudget& b, UarchDerivation& out) {
  // Voltage and frequency: the highest voltage in [min, max] whose compute + SRAM power
  // (with leakage) fits the rest of the budget; power is monotonic in V, so bisect. If even
  // min_voltage does not fit, the units are duty-cycled (dark silicon): the rate is what the
  // power buys at min_voltage. (DeepFlow solves the same cubic in closed form.)
  const Logic logic{out.flops_per_cycle, b.l2_bytes_per_flop, node};
  const double logic_budget = b.power_w * (1.0 - b.dram_power_fraction - b.network_power_fraction);
  double v = node.max_voltage;
  double f = logic.frequency(v);
  if (logic.power(v, f) > logic_budget) {
    out.power_limited = true;
    const double vmin = node.min_voltage;
    if (logic.power(vmin, logic.frequency(vmin)) >= logic_budget) {
      v = vmin;
      f = logic.frequency(vmin) * logic_budget / logic.power(vmin, logic.frequency(vmin));
    } else {
      double lo = vmin, hi = node.max_voltage;
      for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (logic.power(mid, logic.frequency(mid)) > logic_budget)
          hi = mid;
        else
          lo = mid;
      }
      v = lo;
      f = logic.frequency(lo);
    }
  }
  out.voltage = v;
  out.frequency_hz = f;
  const double total_logic = logic.power(v, f);
  out.static_power_w = total_logic * node.static_fraction / (1.0 + node.static_fraction);
  const double dynamic = total_logic - out.static_power_w;
  const double per_flop = node.energy_pj_per_flop + b.l2_bytes_per_flop * node.sram_energy_pj_per_byte;
  out.sram_power_w = dynamic * (b.l2_bytes_per_flop * node.sram_energy_pj_per_byte) / per_flop;
  out.compute_power_w = dynamic - out.sram_power_w;
}

// The derived device in the engine's terms (peaks, memory, caches, efficiencies, power).
void describe_device(const TechnologyNode& node, const DramTechnology& dram, const UarchBudget& b,
                     double dram_bw, UarchDerivation& out) {
  const std::int64_t stacks = out.dram_stacks;
  const double f = out.frequency_hz;
  // The device in the engine's terms.
  DeviceSpec& d = out.device;
  d.name = !b.name.empty()
               ? b.name
               : node.name + " + " + dram.name + " (" + num(b.area_mm2) + " mm2, " + num(b.power_w) + " W)";
  d.source = "derived by the uArch engine (core/hardware/uarch.cpp) from technology/" + node.id +
             " and dram/" + dram.id;
  const double peak16 = out.flops_per_cycle * f;
  d.peak[static_cast<std::size_t>(Precision::fp16)] = FlopRate(peak16);
  d.peak[static_cast<std::size_t>(Precision::bf16)] = FlopRate(peak16);
  d.peak[static_cast<std::size_t>(Precision::tf32)] = FlopRate(peak16 / 2.0);  // A100/H100/B200 ratio
  d.peak[static_cast<std::size_t>(Precision::int8)] = FlopRate(peak16 * 2.0);
  if (node.fp8) d.peak[static_cast<std::size_t>(Precision::fp8)] = FlopRate(peak16 * 2.0);
  d.vector_peak = FlopRate(peak16 * b.vector_fraction);
  d.peak[static_cast<std::size_t>(Precision::fp32)] = d.vector_peak;
  const double units =
      std::max(1.0, std::round(out.flops_per_cycle /
                               static_cast<double>(std::max<std::int64_t>(1, node.unit_flops_per_cycle))));
  d.compute_units = static_cast<std::int64_t>(units);
  d.exp_rate = units * b.sfu_ops_per_cycle_per_unit * f;
  d.hbm_capacity = Bytes(static_cast<double>(stacks) * dram.stack_capacity.value);
  d.hbm_bandwidth = Bandwidth(dram_bw);
  d.l2_capacity = mebibytes(b.area_mm2 * b.sram_fraction * node.sram_mib_per_mm2);
  d.l2_bandwidth = Bandwidth(peak16 * b.l2_bytes_per_flop);
  d.matmul_efficiency = b.matmul_efficiency;
  d.memory_efficiency = b.memory_efficiency;
  // The device's power budget is its board power (run energy, joules per token).
  d.power.tdp_w = b.power_w;
}

}  // namespace

Result<UarchDerivation> derive_device(const TechnologyNode& node, const DramTechnology& dram,
                                      const UarchBudget& b) {
  if (auto err = check_budget(b)) return *err;
  UarchDerivation out;
  const double perimeter = b.perimeter_mm > 0 ? b.perimeter_mm : 4.0 * std::sqrt(b.area_mm2);

  // Compute: logic transistors in the compute share of the die times the architecture's
  // FLOP per clock per transistor (DeepFlow: MCUs per core area; ours: per MTr so the
  // node's density carries the scaling).
  const double compute_area = b.area_mm2 * b.compute_fraction;
  out.flops_per_cycle = compute_area * node.logic_density_mtr_per_mm2 * b.flops_per_cycle_per_mtr;

  double dram_bw = 0;
  if (auto err = derive_dram(dram, b, perimeter, out, dram_bw)) return *err;
  if (auto err = derive_network(node, b, perimeter, out)) return *err;
  derive_operating_point(node, b, out);
  describe_device(node, dram, b, dram_bw, out);
  out.cost = device_cost(node, dram, b, out.dram_stacks);
  return out;
}

double dies_per_wafer(double area_mm2, double wafer_mm) {
  const double pi = 3.14159265358979323846;
  return std::max(
      0.0, pi * (wafer_mm / 2) * (wafer_mm / 2) / area_mm2 - pi * wafer_mm / std::sqrt(2.0 * area_mm2));
}

double negative_binomial_yield(double area_mm2, double defects_per_cm2, double alpha) {
  return std::pow(1.0 + defects_per_cm2 * area_mm2 / 100.0 / alpha, -alpha);
}

std::optional<UarchCost> device_cost(const TechnologyNode& node, const DramTechnology& dram,
                                     const UarchBudget& b, std::int64_t dram_stacks) {
  if (!(node.wafer_usd > 0) || !(dram.usd_per_gb > 0)) return std::nullopt;
  UarchCost c;
  const double n = static_cast<double>(std::max<std::int64_t>(1, b.chiplets));
  c.die_area_mm2 = b.area_mm2 / n * (n > 1 ? 1.0 + b.d2d_area_fraction : 1.0);
  c.dies_per_wafer = dies_per_wafer(c.die_area_mm2);
  if (!(c.dies_per_wafer >= 1)) return std::nullopt;  // a die larger than the wafer can hold
  c.die_yield = negative_binomial_yield(c.die_area_mm2, node.defect_density_per_cm2, node.yield_clustering);
  // A known-good die costs the wafer over the good dies on it.
  c.logic_usd = n * node.wafer_usd / (c.dies_per_wafer * c.die_yield);
  const double stacks = static_cast<double>(dram_stacks);
  c.dram_usd = stacks * dram.stack_capacity.value / 1e9 * dram.usd_per_gb;
  c.packaging_usd = b.packaging_usd_per_mm2 * (n * c.die_area_mm2 + stacks * b.dram_footprint_mm2);
  // Every bond must hold for the package to work; a failed one scraps everything on it.
  c.assembly_yield = std::pow(b.bond_yield, n + stacks);
  c.total_usd = (c.logic_usd + c.dram_usd + c.packaging_usd) / c.assembly_yield;
  return c;
}

SystemSpec derived_system(const UarchDerivation& d, const UarchBudget& b) {
  SystemSpec s;
  s.name = d.device.name + " x" + std::to_string(b.scale_up_domain) + " domain";
  s.source = d.device.source;
  s.device = d.device;
  s.devices_per_node = b.scale_up_domain;
  s.scale_up.bandwidth = d.scale_up_bandwidth;
  s.scale_up.domain_size = b.scale_up_domain;
  s.scale_out.bandwidth = d.scale_out_bandwidth;
  s.scale_out.domain_size = 1;
  return s;
}

}  // namespace optimus
