// The uArch engine: a device derived from a technology node and chip budgets (area, power,
// perimeter), the paper's first block (Kundu et al. 2024, Sec. III-A). The method follows
// DeepFlow's (Ardalani, Pal, Gupta, arXiv 2211.03309, Sec. 3; nanocad-lab/DeepFlow
// `hw_component.py`): area fractions buy compute and SRAM, the die edge ("beachfront") buys
// DRAM PHYs and SerDes lanes, and the power budget sets voltage and frequency through the
// alpha-power law. Our own derivation and constants are documented below and in
// presets/README.md; every technology value lives in presets/technology/ with its source.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "hardware/spec.h"

namespace optimus {

// One DRAM generation (presets/dram/<id>.json): what one stack brings.
struct DramTechnology {
  std::string id;
  std::string name;
  std::string source;
  Bandwidth stack_bandwidth{};  // per stack, at the generation's rated pin speed
  Bytes stack_capacity{};
  double energy_pj_per_bit = 0;  // DRAM core + PHY + interposer, per bit transferred
  double edge_mm = 0;            // die edge one stack's PHY and footprint take
  double usd_per_gb = 0;         // price per GB of stacked DRAM (0 = not stated: no device cost)
};

// One logic technology node (presets/technology/<id>.json), SI inside except where the
// name carries the unit.
struct TechnologyNode {
  std::string id;
  std::string name;
  std::string source;
  double node_nm = 0;
  // Logic.
  double logic_density_mtr_per_mm2 = 0;  // transistors per mm^2 (millions), headline HD logic
  double energy_pj_per_flop = 0;         // dense 16-bit tensor FLOP at nominal voltage, with operand delivery
  double nominal_voltage = 0;            // V
  double threshold_voltage = 0;          // V
  double min_voltage = 0;                // V
  double max_voltage = 0;                // V
  double nominal_frequency_hz = 0;       // at nominal voltage
  double static_fraction = 0;            // leakage power as a fraction of the logic's dynamic power
  std::int64_t unit_flops_per_cycle = 0;  // 16-bit FLOP/clk of one compute unit (SM-like)
  bool fp8 = false;                       // 8-bit float tensor math at twice the 16-bit rate
  // SRAM (last-level cache, effective density including tags, banks and crossbar).
  double sram_mib_per_mm2 = 0;
  double sram_energy_pj_per_byte = 0;
  // DRAM generation of the node's era (a presets/dram id), resolved by the caller.
  std::string dram;
  // SerDes (scale-up links and NICs).
  double serdes_lane_gbps = 0;     // per lane, per direction
  double serdes_lanes_per_mm = 0;  // lanes (one Tx + one Rx pair) per mm of die edge
  double serdes_energy_pj_per_bit = 0;
  // Manufacturing cost (the `cost` object; 0 = not stated: no device cost): the foundry's price
  // of one 300 mm wafer, the random defect density and the negative-binomial clustering factor.
  double wafer_usd = 0;
  double defect_density_per_cm2 = 0;
  double yield_clustering = 3;
};

// What the chip may spend, and the architectural choices that are not technology. Defaults
// describe a large training GPU; where a default was taken from a product it says so.
struct UarchBudget {
  std::string name;                    // name of the derived device ("" = from the node)
  double area_mm2 = 0;                 // logic die area
  double power_w = 0;                  // device power (die + its DRAM + its links)
  double perimeter_mm = 0;             // usable die edge; 0 = a square die, 4 sqrt(area) (DeepFlow's choice)
  double compute_fraction = 0.5;       // of area: tensor/vector units and their register files (ASSUMED)
  double sram_fraction = 0.11;         // of area: last-level cache (ASSUMED; GA100 die-shot estimate)
  double memory_edge_fraction = 0.5;   // of perimeter: DRAM PHYs (GA100/GH100 put HBM on two long edges)
  double network_edge_fraction = 0.3;  // of perimeter: scale-up SerDes (the rest: PCIe, NICs, misc.)
  std::int64_t max_dram_stacks = 0;    // 0 = as many as the edge allows
  // 16-bit FLOP per clock per million logic transistors of compute area: GA100 has 108 SMs x
  // 2048 FLOP/clk on an ASSUMED 413 mm^2 (compute_fraction 0.5 of 826 mm^2) of N7 at 91.2
  // MTr/mm^2 -> 5.87. An architecture constant (how much of the logic is tensor math).
  double flops_per_cycle_per_mtr = 5.87;
  double l2_bytes_per_flop = 0.016;        // L2->SM bandwidth per peak FLOP/s (A100: 5000 GB/s / 312 TFLOP/s)
  double vector_fraction = 1.0 / 16.0;     // non-tensor fp32 rate / 16-bit tensor rate (A100 19.5/312)
  double sfu_ops_per_cycle_per_unit = 16;  // exp throughput per compute unit per clock (A100, H100 SMs)
  std::int64_t scale_up_domain = 8;        // devices per scale-up (NVLink-like) domain
  std::int64_t nic_lanes = 4;              // SerDes lanes per device to the scale-out network
  // Power split (DeepFlow's fixed power breakdown): DRAM and SerDes may spend up to these
  // shares of power_w at full rate (else their rate is lowered to fit); compute, SRAM and
  // leakage get the rest. A100: HBM2e 2.04 TB/s x 8 x 3.9 pJ/bit = 64 W (16% of 400 W),
  // NVLink3 + HDR NIC 650 GB/s x 8 x 5.5 pJ/bit = 29 W (7%); defaults leave a little headroom.
  double dram_power_fraction = 0.2;
  double network_power_fraction = 0.08;
  // Calibration of derived devices: the mean of the measured fractions of the A100, H100 and
  // B200 presets (MAMF/peak 0.869, 0.803, 0.776; STREAM/peak 0.83, 0.89, 0.83).
  double matmul_efficiency = 0.816;
  double memory_efficiency = 0.85;
  // Packaging (the chiplet cost model, device_cost below). The logic is `chiplets` dies of equal
  // area, each carrying a die-to-die interface of d2d_area_fraction more area (ASSUMED 10%: a
  // UCIe-class PHY strip and its routing) when there is more than one.
  std::int64_t chiplets = 1;
  double d2d_area_fraction = 0.10;
  // Interposer, substrate, assembly and test per mm^2 of silicon placed on the package (logic
  // dies and DRAM stack footprints): DERIVED from a 2026 bill-of-materials estimate of the H100
  // SXM5 (Silicon Analysts' cost bridge, from Epoch AI, Raymond James and TrendForce estimates:
  // packaging ~$750 plus test and assembly ~$920 for an 814 mm^2 die and five 110 mm^2 HBM3
  // stacks: $1,670 / 1,364 mm^2).
  double packaging_usd_per_mm2 = 1.22;
  double dram_footprint_mm2 = 110;  // one HBM stack's footprint (JEDEC HBM3 package, ~11 x 10 mm)
  double bond_yield = 0.99;         // ASSUMED: each die or stack bonded to the package survives
};

// What a derived device costs to make (device_cost): known-good logic dies, DRAM and packaging.
struct UarchCost {
  double die_area_mm2 = 0;    // one logic die (chiplet)
  double dies_per_wafer = 0;  // gross candidates on a 300 mm wafer
  double die_yield = 0;       // share of them free of killer defects
  double logic_usd = 0;       // all logic dies
  double dram_usd = 0;        // all DRAM stacks
  double packaging_usd = 0;   // interposer, substrate, assembly, test
  double assembly_yield = 1;  // bond_yield ^ (dies + stacks)
  double total_usd = 0;       // (logic + dram + packaging) / assembly_yield
};

// How the derived device came out: the solved operating point and what limited it.
struct UarchDerivation {
  DeviceSpec device;
  double frequency_hz = 0;
  double voltage = 0;
  double flops_per_cycle = 0;
  std::int64_t dram_stacks = 0;
  std::int64_t serdes_lanes = 0;
  Bandwidth scale_up_bandwidth{};   // per device, per direction
  Bandwidth scale_out_bandwidth{};  // per device, per direction
  double compute_power_w = 0, sram_power_w = 0, dram_power_w = 0, network_power_w = 0, static_power_w = 0;
  bool power_limited = false;      // true: the power budget, not max_voltage, set the frequency
  bool dram_throttled = false;     // DRAM rate lowered to fit dram_power_fraction
  bool network_throttled = false;  // SerDes rate lowered to fit network_power_fraction
  std::optional<UarchCost> cost;   // when the node and the DRAM state their prices
};

// Gross dies of `area_mm2` on a wafer of `wafer_mm` diameter: the wafer's area over the die's
// less the partial dies along the edge (Hennessy and Patterson, "Computer Architecture: A
// Quantitative Approach", 6th ed., Sec. 1.6): pi (d/2)^2 / A - pi d / sqrt(2 A).
double dies_per_wafer(double area_mm2, double wafer_mm = 300);

// Share of dies free of killer defects, negative binomial (Stapper, "Modeling of integrated
// circuit defect sensitivities", IBM J. Res. Dev. 1983; Cunningham, IEEE Trans. Semicond. Manuf.
// 1990): (1 + D0 A / alpha)^-alpha, D0 per cm^2, A in cm^2; alpha -> infinity is Poisson.
double negative_binomial_yield(double area_mm2, double defects_per_cm2, double alpha);

// The manufacturing cost of a derived device (nullopt when the node or DRAM states no price).
std::optional<UarchCost> device_cost(const TechnologyNode& node, const DramTechnology& dram,
                                     const UarchBudget& budget, std::int64_t dram_stacks);

// Node + DRAM generation + budgets -> device. Errors (code "uarch.*", path relative to the
// budget object) for budgets that cannot build a device (no area for compute, no DRAM stack
// on the edge, not enough power for static power).
Result<UarchDerivation> derive_device(const TechnologyNode& node, const DramTechnology& dram,
                                      const UarchBudget& budget);

// A system around derived devices: `devices_per_node` = scale_up_domain, scale-up links from
// the SerDes lanes on the die edge, scale-out from `nic_lanes` SerDes lanes. Collective
// protocol terms keep the NetworkTier defaults (core/hardware/spec.h).
SystemSpec derived_system(const UarchDerivation& d, const UarchBudget& budget);

}  // namespace optimus
