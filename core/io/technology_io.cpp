#include "io/technology_io.h"

#include <optional>

#include "io/objects.h"
#include "io/presets.h"

namespace optimus::io {

Result<TechnologyNode> read_technology(const json& v, const std::string& path) {
  std::optional<Error> err;
  Reader r(v, path, err);
  TechnologyNode n;
  n.name = r.string("name", true).value_or("");
  n.source = r.string("source", true).value_or("");
  r.string("notes", false);
  n.node_nm = r.number("node_nm", true, 0.1, 1000).value_or(1);
  if (const json* lv = r.get("logic", true)) {
    Reader lr(*lv, r.child("logic"), err);
    n.logic_density_mtr_per_mm2 = lr.number("density_MTr_per_mm2", true, 1e-3, 1e6).value_or(1);
    n.energy_pj_per_flop = lr.number("energy_pJ_per_flop", true, 1e-6, 1e3).value_or(1);
    n.nominal_voltage = lr.number("nominal_voltage_V", true, 0.05, 5).value_or(1);
    n.threshold_voltage = lr.number("threshold_voltage_V", true, 0, 5).value_or(0);
    n.min_voltage = lr.number("min_voltage_V", true, 0.05, 5).value_or(1);
    n.max_voltage = lr.number("max_voltage_V", true, 0.05, 5).value_or(1);
    n.nominal_frequency_hz = lr.number("nominal_frequency_GHz", true, 1e-3, 100).value_or(1) * 1e9;
    n.static_fraction = lr.number("static_fraction", true, 0, 10).value_or(0);
    n.unit_flops_per_cycle = lr.integer("unit_flops_per_cycle", true, 1, 1'000'000'000).value_or(1);
    n.fp8 = lr.boolean("fp8", false).value_or(false);
    lr.string("notes", false);
    lr.finish();
    if (!err && !(n.threshold_voltage < n.min_voltage && n.min_voltage <= n.nominal_voltage &&
                  n.nominal_voltage <= n.max_voltage))
      lr.fail("scenario.out_of_range", lr.path(), "voltages must satisfy threshold < min <= nominal <= max");
  }
  if (const json* sv = r.get("sram", true)) {
    Reader sr(*sv, r.child("sram"), err);
    n.sram_mib_per_mm2 = sr.number("density_MiB_per_mm2", true, 0, 1e6).value_or(0);
    n.sram_energy_pj_per_byte = sr.number("energy_pJ_per_byte", true, 0, 1e3).value_or(0);
    sr.string("notes", false);
    sr.finish();
  }
  n.dram = r.string("dram", true).value_or("");
  if (const json* nv = r.get("serdes", true)) {
    Reader nr(*nv, r.child("serdes"), err);
    n.serdes_lane_gbps = nr.number("lane_Gbps", true, 1e-3, 1e6).value_or(1);
    n.serdes_lanes_per_mm = nr.number("lanes_per_mm", true, 1e-3, 1e3).value_or(1);
    n.serdes_energy_pj_per_bit = nr.number("energy_pJ_per_bit", true, 0, 1e3).value_or(0);
    nr.string("notes", false);
    nr.finish();
  }
  if (const json* cv = r.get("cost", false)) {
    Reader cr(*cv, r.child("cost"), err);
    n.wafer_usd = cr.number("wafer_usd", true, 1, 1e7).value_or(0);
    n.defect_density_per_cm2 = cr.number("defect_density_per_cm2", true, 0, 100).value_or(0);
    n.yield_clustering = cr.number("clustering_alpha", false, 0.01, 1000).value_or(n.yield_clustering);
    cr.string("notes", false);
    cr.finish();
  }
  r.finish();
  if (err) return *err;
  return n;
}

Result<DramTechnology> read_dram(const json& v, const std::string& path) {
  std::optional<Error> err;
  Reader r(v, path, err);
  DramTechnology d;
  d.name = r.string("name", true).value_or("");
  d.source = r.string("source", true).value_or("");
  r.string("notes", false);
  r.number("pin_Gbps", false, 1e-3, 1e4);  // documentation: stack_bandwidth_GBps = pins x rate / 8
  d.stack_bandwidth = gigabytes_per_s(r.number("stack_bandwidth_GBps", true, 1e-3, 1e7).value_or(1));
  d.stack_capacity = gibibytes(r.number("stack_capacity_GiB", true, 1e-3, 1e6).value_or(1));
  d.energy_pj_per_bit = r.number("energy_pJ_per_bit", true, 0, 1e3).value_or(0);
  d.edge_mm = r.number("edge_mm", true, 1e-3, 1e4).value_or(1);
  d.usd_per_gb = r.number("usd_per_GB", false, 1e-6, 1e6).value_or(0);
  r.finish();
  if (err) return *err;
  return d;
}

UarchBudget read_budget(Reader& r) {
  UarchBudget b;
  read_fields(budget_fields(), r, b);
  return b;
}

Result<UarchDerivation> read_uarch(const json& v, const std::string& path, UarchBudget* budget_out) {
  std::optional<Error> err;
  Reader r(v, path, err);
  const std::string node_id = r.string("technology", true).value_or("");
  const std::optional<std::string> dram_id = r.string("dram", false);
  const UarchBudget b = read_budget(r);
  r.finish();
  if (err) return *err;
  auto node = technology_preset(node_id, r.child("technology"));
  if (!node) return node.error();
  auto dram = dram_preset(dram_id.value_or(node->dram), r.child(dram_id ? "dram" : "technology"));
  if (!dram) return dram.error();
  auto d = derive_device(*node, *dram, b);
  if (!d) {
    Error e = d.error();
    e.path = path + e.path;
    return e;
  }
  if (budget_out) *budget_out = b;
  return d;
}

Result<DeviceSpec> read_uarch_device(const json& v, const std::string& path) {
  auto d = read_uarch(v, path);
  if (!d) return d.error();
  return d->device;
}

Result<SystemSpec> read_uarch_system(const json& v, const std::string& path) {
  UarchBudget b;
  auto d = read_uarch(v, path, &b);
  if (!d) return d.error();
  return derived_system(*d, b);
}

}  // namespace optimus::io
