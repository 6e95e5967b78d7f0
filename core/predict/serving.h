// Continuous-batching serving of a scenario (inference.serving): the pools it describes, built
// over the engine's step time, simulated by the serving module (serving/serving.h, which also
// defines ServingPrediction).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "base/result.h"
#include "scenario/scenario.h"
#include "serving/serving.h"

namespace optimus {

// The checks that need no simulation (run by validate as well as predict): the step bound's lower
// estimate and a KV budget that holds the longest request in every pool.
std::optional<Error> check_serving(const Scenario& s);

// Simulates `s.inference->serving`. Errors: a KV budget that holds no request, a run that would
// need more than the step bound.
Result<ServingPrediction> predict_serving(const Scenario& s, std::vector<Warning>& warnings);

// A deployment planned and checked once, then simulated for streams that differ only in their rate
// and number of requests (the capacity search's runs at each rate it tries): its pools keep the
// step times they have timed from one run to the next. run(rate, n) gives predict_serving's
// answer for the scenario with that requests_per_s and num_requests.
class ServingRunner {
 public:
  static Result<ServingRunner> plan(const Scenario& s);  // predict_serving's errors but the step bound
  ServingRunner(ServingRunner&&) noexcept;
  ServingRunner& operator=(ServingRunner&&) noexcept;
  ~ServingRunner();
  Result<ServingPrediction> run(double requests_per_s, std::int64_t num_requests,
                                std::vector<Warning>& warnings);

 private:
  struct Pools;
  explicit ServingRunner(std::unique_ptr<Pools> pools);
  std::unique_ptr<Pools> pools_;
};

}  // namespace optimus
