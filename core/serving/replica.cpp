// One replica simulated step by step (see serving.h for the sources). Each step the scheduler
// (vLLM's, as of its v1 engine; TensorRT-LLM's in-flight batching forms the same mixed steps)
// first gives every running request its next tokens — one for a decoding sequence, the next
// prompt chunk for one still in prefill — under the step's token budget, claiming KV blocks as
// the contexts grow and preempting the newest running request when none are free (its blocks
// freed, its prompt and generated tokens recomputed later, vLLM's default); then admits waiting
// requests while sequences, tokens and free blocks allow. The step then costs what the engine's
// step time (StepModel) says for that mix of prefill chunks and decode tokens.
#include "serving/replica.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "base/math.h"

namespace optimus {

namespace {

class ReplicaSim {
 public:
  ReplicaSim(StepModel& model, Mode mode, std::vector<Request>& reqs, std::int64_t group,
             std::int64_t clients, bool keep_timeline, ReplicaRun& run, const SimBudget& budget)
      : model_(model),
        pool_(model.limits()),
        sv_(pool_.sched),
        mode_(mode),
        reqs_(reqs),
        clients_(clients),
        closed_(clients > 0),
        keep_timeline_(keep_timeline),
        run_(run),
        step_budget_(budget.steps),
        work_budget_(budget.work),
        horizon_(budget.horizon_s),
        spec_k_(pool_.spec_k),
        capacity_(pool_.kv_capacity),
        decode_step_tokens_(1 + pool_.spec_k),
        has_draft_(pool_.draft),
        shared_n_(std::max<std::int64_t>(2, static_cast<std::int64_t>(std::floor(pool_.spec_gain)))),
        group_(std::max<std::int64_t>(1, group)),
        prefix_(group_ > 1 ? std::numeric_limits<std::int64_t>::max() : sv_.shared_prefix_len),
        // A decode pool's requests arrive with their caches (the prefill pool's sharing is done).
        sharing_((group_ > 1 || prefix_ > 0) && mode != Mode::decode_only) {
    run_.shared_n = shared_n_;
    // One holder a prompt of the replica (its requests come whole groups, in order), or one for
    // the replica's one shared prefix.
    if (sharing_) holder_.assign(group_ > 1 ? reqs_.size() / static_cast<std::size_t>(group_) + 1 : 1, -1);
  }

  // The scheduler's loop: returns false past the step bound, or past the horizon (marked in the
  // run: also where the last step ends past it).
  bool simulate() {
    if (closed_) send_first();
    while (true) {
      if (!closed_) arrive();
      if (running_.empty() && waiting_.empty()) {
        if (closed_ || next_ >= reqs_.size()) break;
        t_ = arrive_time(reqs_[next_]);
        continue;
      }
      if (run_.steps >= step_budget_ || run_.work >= work_budget_) return false;
      if (t_ > horizon_) return stop_at_horizon();
      begin_step();
      admit_waiting(schedule_running(sv_.max_num_tokens));
      run_.work += scheduled_ + 1;
      if (scheduled_ == 0) {
        // Nothing fits and nothing runs: the first waiting request needs more KV than the
        // replica has (checked before the run) or the budget is spent: advance to an arrival.
        if (!closed_ && next_ < reqs_.size()) {
          t_ = std::max(t_, arrive_time(reqs_[next_]));
          continue;
        }
        return false;
      }
      const double dt = step_time();
      t_ += dt;
      record_step(dt);
      if (const std::int64_t extra = stretch_length(); extra >= 2) decode_stretch(dt, extra);
      if (any_done_) retire();
      if (keep_timeline_ && (run_.steps - 1) % run_.sample_every == 0) sample(dt);
    }
    return t_ > horizon_ ? stop_at_horizon() : true;
  }

 private:
  // Marks the run as stopped at the budget's horizon (run_pool refuses it as serving.past_horizon).
  bool stop_at_horizon() {
    run_.past_horizon = true;
    return false;
  }

  // Tokens this step whose gap to the previous token does not simply last the step (after a
  // pause, or a speculation's several), with where their gap starts.
  struct Emitted {
    std::int64_t tokens, from_step;
    double from_time;
  };

  double arrive_time(const Request& r) const { return mode_ == Mode::decode_only ? r.ready : r.arrival; }
  // Prefill-only pools finish a request at its first token.
  bool is_done(const Request& r) const { return r.generated >= (mode_ == Mode::prefill_only ? 1 : r.output); }

  // Closed loop: every client sends its first request at time 0.
  void send_first() {
    for (; next_ < reqs_.size() && in_flight_ < clients_; ++next_, ++in_flight_) {
      reqs_[next_].arrival = 0;
      waiting_.push_back(next_);
    }
  }

  // Open loop: the requests that have arrived by now join the queue.
  void arrive() {
    for (; next_ < reqs_.size() && arrive_time(reqs_[next_]) <= t_; ++next_)
      // A disaggregated decode pool receives requests whose only token came with the prefill.
      if (!(mode_ == Mode::decode_only && reqs_[next_].generated >= reqs_[next_].output))
        waiting_.push_back(next_);
  }

  void begin_step() {
    scheduled_ = 0;
    step_no_ = run_.steps;
    regular_gaps_ = 0;
    shared_[0] = shared_[1] = 0;
    step_start_ = t_;
    other_gaps_.clear();
    first_tokens_.clear();
    any_done_ = false;
    fewest_left_ = std::numeric_limits<std::int64_t>::max();
    groups_.clear();
    decode_n_ = decode_ctx_ = prefill_tokens_ = 0;
  }

  // Running requests first, in admission order, each its next tokens while the budget lasts;
  // where the KV blocks run out, the newest running request not yet scheduled is preempted.
  // Returns the budget left.
  std::int64_t schedule_running(std::int64_t budget) {
    for (std::size_t k = 0; k < running_.size(); ++k) {
      const std::size_t i = running_[k];
      Request& r = reqs_[i];
      const bool prefill = r.kv < r.target;
      const std::int64_t tokens = prefill ? std::min(r.target - r.kv, budget) : decode_step_tokens_;
      if (tokens <= 0 || tokens > budget) {
        pause(r);
        continue;
      }
      // Claims only grow (a reserved request already holds its whole context).
      const std::int64_t upto = r.kv + tokens;
      const double need = upto <= r.claimed ? r.kv_bytes : std::max(r.kv_bytes, own_bytes(r, upto));
      while (used_ - r.kv_bytes + need > capacity_) {
        // Preempt the newest running request not yet scheduled this step (possibly this one).
        const std::size_t victim = running_.back();
        preempt(victim);
        running_.pop_back();
        waiting_.push_front(victim);
        if (victim == i) return budget;
      }
      claim(r, upto);
      schedule(i, tokens, prefill);
      budget -= tokens;
    }
    return budget;
  }

  // Whether the running sequences fill the scheduler's batch.
  bool batch_full() const { return static_cast<std::int64_t>(running_.size()) >= sv_.max_batch; }

  // Then waiting requests, first come first served, while sequences, tokens and KV blocks allow
  // (kv_admission reserve: blocks for the whole context at admission).
  void admit_waiting(std::int64_t budget) {
    // Static batching (ServingSpec::static_batching): a batch forms when the last has finished,
    // over as many steps as the token budget needs for its prompts, and is closed once it is
    // full, nothing waits, or the KV cache holds no more.
    if (sv_.static_batching) {
      if (running_.empty()) forming_ = true;
      if (!forming_) return;
    }
    bool kv_full = false;
    while (!waiting_.empty() && !batch_full() && budget > 0) {
      const std::size_t i = waiting_.front();
      Request& r = reqs_[i];
      const Admission a = admission(i, budget);
      const bool prefill = a.tokens > 0;
      if (used_ - r.kv_bytes + (a.claim_bytes - a.held) > capacity_) {
        kv_full = true;
        break;
      }
      take_prompt(i, a.share);
      claim(r, a.claim_tokens);
      waiting_.pop_front();
      running_.push_back(i);
      schedule(i, prefill ? a.tokens : decode_step_tokens_, prefill);
      budget -= prefill ? a.tokens : decode_step_tokens_;
    }
    if (sv_.static_batching && (kv_full || waiting_.empty() || batch_full())) forming_ = false;
  }

  // What admitting waiting request i would take now, with `budget` tokens left in the step: its
  // share of a prefix another request holds (shareable: in its context without being prefilled or
  // claimed), the prompt tokens it prefills (<= 0: none left, it decodes), the context its blocks
  // then cover (kv_admission reserve: the whole context), their bytes and the bytes of the share
  // that another request's blocks hold.
  struct Admission {
    std::int64_t share, tokens, claim_tokens;
    double claim_bytes, held;
  };
  Admission admission(std::size_t i, std::int64_t budget) const {
    const Request& r = reqs_[i];
    const std::int64_t share = shareable(i), kv = r.kv + share;
    const std::int64_t tokens = std::min(r.target - kv, budget);
    const std::int64_t now = kv + std::max<std::int64_t>(tokens, 1);
    const std::int64_t whole = mode_ == Mode::prefill_only ? r.target : r.input + r.output - 1;
    const std::int64_t claim_tokens = sv_.kv_admission == KvAdmission::reserve ? std::max(now, whole) : now;
    return {share, tokens, claim_tokens, pool_.bytes_for(claim_tokens), held_bytes(i, share)};
  }

  // The scheduler's own host time between steps (ServingSpec::step_overhead_s) and its
  // per-request part (step_overhead_per_request_s, every scheduled request), GPU idle. With an
  // overlap scheduler (ServingSpec::overlap_schedule) the host's work for this step ran while the
  // GPU ran the step before: the longer of the two sets the pace.
  double with_host(double gpu) const { return sv_.overlap_schedule ? std::max(gpu, host_s_) : gpu + host_s_; }

  // The step's time: the decoding sequences join the prompt chunks as one group at their mean
  // context, then the engine's step time, the host's and the draft's.
  double step_time() {
    const std::int64_t decode_mean =
        decode_n_ > 0 ? std::max<std::int64_t>(1, (decode_ctx_ + decode_n_ / 2) / decode_n_) : 0;
    if (decode_n_ > 0) groups_.push_back({decode_n_, decode_step_tokens_, decode_mean + spec_k_});
    host_s_ = sv_.step_overhead_s + sv_.step_overhead_per_request_s * d(scheduled_);
    double dt = with_host(model_.step_s(groups_));
    if (has_draft_) {
      // The draft reads the step's prompt chunks and drafts the first token for every decoding
      // sequence in one pass, then k - 1 more passes of one token each.
      draft_groups_.assign(groups_.begin(), groups_.end() - (decode_n_ > 0 ? 1 : 0));
      if (decode_n_ > 0) draft_groups_.push_back({decode_n_, 1, decode_mean});
      dt += model_.draft_s(draft_groups_);
      if (decode_n_ > 0 && spec_k_ > 1) {
        draft_groups_.assign(1, SeqGroup{decode_n_, 1, decode_mean});
        dt += model_.draft_s(draft_groups_) * d(spec_k_ - 1);
      }
    }
    return dt;
  }

  // The time of a decode-only step of the running batch at a mean context of `mean` tokens, as
  // step_time() forms it (the decode group is the last of groups_).
  double decode_step_at(std::int64_t mean) {
    groups_.back().kv_len = mean + spec_k_;
    double t = with_host(model_.step_s(groups_));
    if (has_draft_) {
      draft_groups_.assign(1, SeqGroup{decode_n_, 1, mean});
      const double pass = model_.draft_s(draft_groups_);
      t += pass;
      if (spec_k_ > 1) t += pass * d(spec_k_ - 1);
    }
    return t;
  }

  // The step's inter-token gaps, its share of the time-weighted sums, and the first tokens it
  // ends with.
  void record_step(double dt) {
    if (run_.record_steps) {
      run_.spans.push_back({1, dt, 0.0, d(regular_gaps_), {shared_[0], shared_[1]}});
      run_.span_ends.push_back(t_);
      for (const Emitted& e : other_gaps_) run_.long_gaps.push_back({e.from_step, run_.steps, e.tokens});
    } else if (run_.gaps) {
      run_.gaps->add(dt, d(regular_gaps_));
      for (int c = 0; c < 2; ++c) run_.gaps->add((t_ - step_start_) / d(slot_tokens(c + 1)), shared_[c]);
      for (const Emitted& e : other_gaps_) run_.gaps->add((t_ - e.from_time) / d(e.tokens), d(e.tokens));
    }
    ++run_.steps;
    run_.eager_steps += pool_.replays_graph(groups_) ? 0 : 1;  // the groups step_time() timed
    if (!pool_.within_graphs(groups_)) {
      ++run_.beyond_graphs;
      run_.beyond_graphs_wait_s += model_.host_wait_s(groups_);
    }
    run_.busy_batch += d(scheduled_) * dt;
    run_.busy_kv += used_ / capacity_ * dt;
    run_.peak_kv = std::max(run_.peak_kv, used_ / capacity_);
    run_.busy_time += dt;
    for (std::size_t i : first_tokens_) reqs_[i].first_token = t_;
  }

  // Decode-only stretches: while every running sequence decodes, nothing can be admitted and
  // nobody finishes, consecutive steps differ only in their contexts (one token longer each, or
  // under speculative decoding what each sequence's credit gives: gained()) and their time is
  // affine in the mean context (the KV read of decode attention), so k steps cost k times the
  // mean of the first and last (trapezoid, exact for an affine time; under speculation to the
  // step-by-step loop's rounding of the mean to a whole token). (A request that just finished
  // ends any stretch before it starts.) The steps that may follow the one just taken that way (0
  // where none).
  std::int64_t stretch_length() const {
    if (!pool_.stretches || prefill_tokens_ != 0 || mode_ == Mode::prefill_only ||
        scheduled_ != static_cast<std::int64_t>(running_.size()) || any_done_)
      return 0;
    // Waiting requests stay out until a completion when the batch is full or the first of them
    // does not fit the free KV blocks (which only shrink while sequences grow).
    bool blocked = (sv_.static_batching && !forming_) || waiting_.empty() || batch_full();
    if (!blocked) {
      // Its admission at a whole step's budget (stretches run in no prefill-only pool).
      const Admission a = admission(waiting_.front(), sv_.max_num_tokens);
      blocked = used_ + a.claim_bytes - a.held > capacity_;
    }
    if (!blocked) return 0;
    // Every running request was scheduled: the fewest tokens left is over all of them (under
    // speculative decoding, the fewest steps to gain them).
    std::int64_t fewest = fewest_left_;
    if (spec_k_ > 0)
      for (std::size_t i : running_)
        fewest = std::min(fewest, steps_for(reqs_[i], reqs_[i].output - reqs_[i].generated));
    const std::int64_t extra = std::min(fewest, step_budget_ - run_.steps);
    if (extra >= 2 && sv_.kv_admission == KvAdmission::on_demand) return steps_in_free_blocks(extra);
    return extra;
  }

  // Tokens a decoding sequence gains over its next `j` steps: one a step, or under speculative
  // decoding the whole part of its credit plus j expected gains (schedule()'s running credit in
  // closed form).
  std::int64_t gained(const Request& r, std::int64_t j) const {
    if (spec_k_ == 0) return j;
    return static_cast<std::int64_t>(std::floor(r.credit + d(j) * pool_.spec_gain));
  }
  // The steps (at least one) after which a decoding sequence has gained `tokens`.
  std::int64_t steps_for(const Request& r, std::int64_t tokens) const {
    if (spec_k_ == 0) return tokens;
    auto j = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::ceil((d(tokens) - r.credit) / pool_.spec_gain)));
    while (gained(r, j) < tokens) ++j;
    while (j > 1 && gained(r, j - 1) >= tokens) --j;
    return j;
  }
  // The context a decoding sequence claims blocks for in the k-th step from now: its next token,
  // or its drafts' slots ahead (schedule_running()).
  std::int64_t claim_in(const Request& r, std::int64_t k) const {
    return r.kv + gained(r, k - 1) + decode_step_tokens_;
  }

  // The most of `extra` decode steps whose contexts, longer each step, the free KV blocks still
  // hold: the step-by-step loop would take exactly these before its first preemption. The blocks
  // needed only grow with the steps, so a search finds the last that fits. Each probe walks every
  // running sequence, so the search starts where the answer nearly is: the blocks a stretch
  // claims grow about in proportion to its steps (each sequence one every `block` tokens), so
  // the last step that fits is near extra x free / (what all extra steps would claim); a
  // galloping search from there (Bentley and Yao 1976) brackets it in a few probes, then a
  // binary search ends it. The same answer as bisecting [0, extra]: the predicate is monotone.
  std::int64_t steps_in_free_blocks(std::int64_t extra) const {
    const auto growth = [&](std::int64_t k) {
      double grow = 0;
      for (std::size_t i : running_)
        grow += std::max(reqs_[i].kv_bytes, own_bytes(reqs_[i], claim_in(reqs_[i], k))) - reqs_[i].kv_bytes;
      return grow;
    };
    const auto fits = [&](std::int64_t k) { return used_ + growth(k) <= capacity_; };
    const double all = growth(extra);
    if (used_ + all <= capacity_) return extra;
    const auto guess = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(d(extra) * (capacity_ - used_) / all), 0, extra - 1);
    std::int64_t lo = guess, hi = guess;  // fits(lo), not fits(hi) once bracketed
    if (fits(guess)) {
      for (std::int64_t step = 1;; step *= 2) {
        hi = std::min(extra, lo + step);
        if (hi == extra || !fits(hi)) break;
        lo = hi;
      }
    } else {
      for (std::int64_t step = 1;; step *= 2) {
        lo = std::max<std::int64_t>(0, hi - step);
        if (lo == 0 || fits(lo)) break;
        hi = lo;
      }
    }
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      (fits(mid) ? lo : hi) = mid;
    }
    return lo;
  }

  // Up to `extra` more decode steps after one of `dt`, each `slope` longer than the one before,
  // cut at the first step that starts at or after the next arrival (which joins there, as the
  // step-by-step loop admits it), taken at once. Under speculative decoding the mean context
  // grows by the expected gain a step, so the slope is the mean's, exact to the rounding of the
  // step-by-step loop's whole-token mean (under one token).
  void decode_stretch(double dt, std::int64_t extra) {
    const double next_arrival = !closed_ && next_ < reqs_.size() ? arrive_time(reqs_[next_])
                                                                 : std::numeric_limits<double>::infinity();
    const std::int64_t mean = groups_.back().kv_len - spec_k_;
    const std::int64_t grow = spec_k_ == 0 ? extra : std::llround(d(extra) * pool_.spec_gain);
    const double last = decode_step_at(mean + grow);  // the same host time as dt's
    const double slope = (last - dt) / d(extra);
    // Stretch step j (j = 1, 2, ...) takes dt + slope j, so the first i of them take
    // C(i) = i dt + slope i (i + 1) / 2 and step j starts at t + C(j - 1); the stretch keeps the
    // steps that start before the arrival.
    if (next_arrival <= t_) return;
    if (t_ + d(extra) * dt + slope * d(extra) * d(extra + 1) / 2.0 > next_arrival) {
      const double gap = next_arrival - t_;
      const auto elapsed = [&](std::int64_t i) { return d(i) * dt + slope * d(i) * d(i + 1) / 2.0; };
      std::int64_t lo = 0, hi = extra;  // elapsed(lo) < gap <= elapsed(hi)
      while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (elapsed(mid) < gap ? lo : hi) = mid;
      }
      extra = lo + 1;
    }
    advance_stretch(dt, slope, extra);
  }

  // Takes `extra` (>= 1) stretch steps: step j lasts dt + slope j, every running sequence gains
  // one token a step (under speculative decoding, what its credit gives: gained()).
  void advance_stretch(double dt, double slope, std::int64_t extra) {
    const double end = dt + slope * d(extra);
    const double total = d(extra) * (dt + end) / 2.0 + (end - dt) / 2.0;
    t_ += total;
    run_.steps += extra;
    run_.eager_steps += pool_.replays_graph(groups_) ? 0 : extra;  // the decode group alone
    if (!pool_.within_graphs(groups_)) {
      run_.beyond_graphs += extra;
      run_.beyond_graphs_wait_s += d(extra) * model_.host_wait_s(groups_);  // at the stretch's first step
    }
    const double batch = d(static_cast<std::int64_t>(running_.size()));
    if (spec_k_ > 0) {
      record_speculated(dt, slope, extra);
    } else if (run_.record_steps) {
      run_.spans.push_back({extra, dt + slope, slope, batch});
      run_.span_ends.push_back(t_);
    } else if (run_.gaps) {
      // Step j of the stretch takes dt + slope j: evenly spread, as many at each.
      run_.gaps->add_even(dt + slope * 0.5, dt + slope * (d(extra) + 0.5), batch * d(extra));
    }
    run_.busy_batch += d(static_cast<std::int64_t>(running_.size())) * total;
    run_.busy_time += total;
    // The KV in use over the stretch, as step by step (an on-demand request's blocks grow with
    // its context; reserved ones hold it whole already).
    double kv_time = used_ * total;
    const bool on_demand = sv_.kv_admission == KvAdmission::on_demand;
    const std::int64_t last_step = run_.steps - 1;
    for (std::size_t i : running_) {
      Request& r = reqs_[i];
      if (on_demand)
        kv_time +=
            spec_k_ == 0 ? growth_time(r, extra, dt, slope) : speculated_growth_time(r, extra, dt, slope);
      const std::int64_t last_claim = claim_in(r, extra);
      const std::int64_t n = std::min(gained(r, extra), r.output - r.generated);
      if (spec_k_ > 0) {
        const double c = r.credit + d(extra) * pool_.spec_gain;
        r.credit = c - std::floor(c);
      }
      r.kv += n;
      r.generated += n;
      r.last_step = last_step;
      if (on_demand) claim(r, last_claim);
      any_done_ = any_done_ || is_done(r);
    }
    run_.busy_kv += kv_time / capacity_;
    run_.peak_kv = std::max(run_.peak_kv, used_ / capacity_);  // the blocks only grow over a stretch
  }

  // Where a step records the gaps of `n` tokens that came at once to a sequence that had one the
  // step before: slot 0, one token (the step's gap); slots 1 and 2, shared_n_ and shared_n_ + 1
  // (StepSpan::shared, each gap the step over n); -1, none of these (kept one by one).
  int gap_slot(std::int64_t n) const {
    if (n == 1) return 0;
    return n >= shared_n_ && n <= shared_n_ + 1 ? static_cast<int>(n - shared_n_) + 1 : -1;
  }
  std::int64_t slot_tokens(int slot) const { return run_.slot_tokens(slot); }

  // The inter-token gaps of a speculative stretch (advance_stretch(), before the sequences move):
  // a sequence gains the whole part of the expected gain each step or one more, a gap of the
  // step's time over that count for each token. Over steps 1 to extra - 1 the counts are
  // gained()'s (gained() - steps x the whole part of the steps give one more), spread evenly
  // over those steps; the last step's are each sequence's own (what it has left, if it ends
  // there). The sum of the gaps is the step by step's: each sequence's steps' times.
  void record_speculated(double dt, double slope, std::int64_t extra) {
    const std::int64_t whole = static_cast<std::int64_t>(std::floor(pool_.spec_gain)), body = extra - 1;
    // Tokens by their gap's slot (gap_slot()), over the body of the stretch and in its last step.
    double spread[3] = {0, 0, 0}, last[3] = {0, 0, 0};
    last_tokens_.clear();
    for (std::size_t i : running_) {
      const Request& r = reqs_[i];
      const std::int64_t before = gained(r, body);
      const std::int64_t more = std::clamp<std::int64_t>(before - body * whole, 0, body);
      spread[gap_slot(whole)] += d((body - more) * whole);
      spread[gap_slot(whole + 1)] += d(more * (whole + 1));
      const std::int64_t n = std::min(gained(r, extra), r.output - r.generated) - before;
      if (const int slot = gap_slot(n); slot >= 0)
        last[slot] += d(n);
      else
        last_tokens_.push_back(n);
    }
    const double end = dt + slope * d(extra);
    if (run_.record_steps) {
      if (body > 0) {
        const double per = d(body);
        run_.spans.push_back({body, dt + slope, slope, spread[0] / per, {spread[1] / per, spread[2] / per}});
        run_.span_ends.push_back(t_ - end);
      }
      run_.spans.push_back({1, end, 0.0, last[0], {last[1], last[2]}});
      run_.span_ends.push_back(t_);
      for (std::int64_t n : last_tokens_) run_.long_gaps.push_back({run_.steps - 2, run_.steps - 1, n});
    } else if (run_.gaps) {
      const double a = dt + slope * 0.5, b = dt + slope * (d(body) + 0.5);
      for (int c = 0; c < 3; ++c) {
        const double n = d(slot_tokens(c));
        if (body > 0) run_.gaps->add_even(a / n, b / n, spread[c]);
        run_.gaps->add(end / n, last[c]);
      }
      for (std::int64_t n : last_tokens_) run_.gaps->add(end / d(n), d(n));
    }
  }

  // Bytes x seconds that a request's new blocks add over a stretch of `extra` steps, step j lasting
  // dt + slope j with the context kv + j: a block is claimed each time the context crosses into
  // one (every `block` steps from the first past its claim) and stays to the stretch's end.
  // Summed in closed form where every block costs the same (below the attention window, or past
  // it), else block by block.
  double growth_time(const Request& r, std::int64_t extra, double dt, double slope) const {
    const std::int64_t j1 = std::max<std::int64_t>(1, r.claimed - r.kv + 1), B = pool_.block;
    if (j1 > extra) return 0;
    const auto until_end = [&](double u) { return stretch_tail(u, extra, dt, slope); };
    const std::int64_t m = (extra - j1) / B + 1;  // blocks claimed
    const std::int64_t last = j1 + (m - 1) * B;
    const double block_bytes = pool_.bytes_for(r.kv + j1) - pool_.bytes_for(r.kv + j1 - 1);
    if (pool_.window <= 0 || pool_.covered(r.kv + last) <= pool_.window || r.kv + j1 - 1 >= pool_.window) {
      // The sum of until_end over u = U, U - B, ..., U - (m - 1) B, from the sums of u and u^2.
      const double U = d(extra - j1 + 1), M = d(m), b = d(B);
      const double su = M * U - b * M * (M - 1.0) / 2.0;
      const double su2 = M * U * U - U * b * M * (M - 1.0) + b * b * (M - 1.0) * M * (2.0 * M - 1.0) / 6.0;
      return block_bytes * (dt * su + slope * ((2.0 * d(extra) + 1.0) * su - su2) / 2.0);
    }
    double sum = 0;
    for (std::int64_t j = j1; j <= extra; j += B)
      sum += (pool_.bytes_for(r.kv + j) - pool_.bytes_for(r.kv + j - 1)) * until_end(d(extra - j + 1));
    return sum;
  }

  // The time from stretch step j to the stretch's end, by its u = extra - j + 1 steps: u dt, and
  // slope times j + ... + extra = (2 extra + 1 - u) u / 2.
  static double stretch_tail(double u, std::int64_t extra, double dt, double slope) {
    return u * dt + slope * (2.0 * d(extra) + 1.0 - u) * u / 2.0;
  }

  // growth_time() under speculative decoding: the k-th step claims blocks up to claim_in(r, k),
  // so each next block (from the first token past the claim) is claimed at the first step whose
  // claim reaches it.
  double speculated_growth_time(const Request& r, std::int64_t extra, double dt, double slope) const {
    double sum = 0;
    for (std::int64_t token = r.claimed + 1;; token += pool_.block) {
      const std::int64_t need = token - r.kv - decode_step_tokens_;  // tokens gained before that step
      const std::int64_t j = need <= 0 ? 1 : steps_for(r, need) + 1;
      if (j > extra) break;
      sum += (pool_.bytes_for(token) - pool_.bytes_for(token - 1)) *
             stretch_tail(d(extra - j + 1), extra, dt, slope);
    }
    return sum;
  }

  // Retires finished requests, in admission order.
  void retire() {
    std::size_t w = 0;
    for (std::size_t k = 0; k < running_.size(); ++k) {
      const std::size_t i = running_[k];
      if (is_done(reqs_[i]))
        finish(i);
      else
        running_[w++] = i;
    }
    running_.resize(w);
  }

  // A chart sample of the step; past 256 samples every other one goes and sampling halves.
  void sample(double dt) {
    run_.timeline.push_back({t_, dt, static_cast<std::int64_t>(running_.size()),
                             static_cast<std::int64_t>(waiting_.size()), prefill_tokens_, decode_n_,
                             used_ / capacity_});
    if (run_.timeline.size() >= 256) {
      std::size_t k = 0;
      for (std::size_t j = 0; j < run_.timeline.size(); j += 2) run_.timeline[k++] = run_.timeline[j];
      run_.timeline.resize(k);
      run_.sample_every *= 2;
    }
  }

  void finish(std::size_t i) {
    Request& r = reqs_[i];
    r.done = t_;
    used_ -= r.kv_bytes;
    r.kv_bytes = 0;
    release_prompt(i);
    r.claimed = 0;
    if (closed_ && next_ < reqs_.size()) {
      reqs_[next_].arrival = t_;
      waiting_.push_back(next_++);
    }
  }

  // A request that got a token the step before and gets none in this one: its last token came at
  // t, which the gap to its next token starts from.
  void pause(Request& r) const {
    if (r.last_step == step_no_ - 1) r.last_time = t_;
  }

  void preempt(std::size_t i) {
    Request& r = reqs_[i];
    pause(r);
    used_ -= r.kv_bytes;
    r.kv_bytes = 0;
    release_prompt(i);
    r.claimed = 0;
    r.kv = 0;
    r.target = r.input + r.generated;  // recompute the prompt and what was generated
    ++run_.preemptions;
  }

  // The prefix a request shares: samples of one prompt (ServingSpec::prompt_group; they are dealt
  // whole and in order, so the replica's i-th request is a sample of its (i / group)-th prompt)
  // share the prompt, or every request of the replica its shared_prefix_len tokens (one prefix).
  std::size_t prompt_of(std::size_t i) const { return group_ > 1 ? i / static_cast<std::size_t>(group_) : 0; }

  // The prompt tokens a waiting request would find in the prefix cache if admitted now: the whole
  // blocks (prefix caching shares full blocks) of the shared prefix the holding request has claimed
  // so far, at most all but the last prompt token (a request computes at least one token for its
  // logits). vLLM V1 caches a block as it allocates it for the tokens a step schedules, so a
  // request admitted in the same step as the holder's prefill finds its blocks. With no holder, a
  // replica's one shared prefix (shared_prefix_len) is still found once computed: its blocks are
  // the cache's most recently used (vLLM's free-block queue and SGLang's radix tree evict the least
  // recently used first), and the request re-claims them; a sample of an RL prompt is not (its
  // blocks go, under the cache pressure such rollouts run at). 0 without sharing, for a request
  // with a context, or with nothing to find.
  std::int64_t shareable(std::size_t i) const {
    if (!sharing_ || reqs_[i].kv > 0) return 0;
    const std::int64_t h = holder_[prompt_of(i)];
    if (static_cast<std::size_t>(h) == i) return 0;
    const std::int64_t found = h < 0 ? cached_
                                     : std::min({reqs_[static_cast<std::size_t>(h)].claimed,
                                                 reqs_[static_cast<std::size_t>(h)].input, prefix_});
    const std::int64_t share = std::min(found, reqs_[i].input - 1);
    return std::max<std::int64_t>(0, share) / pool_.block * pool_.block;
  }

  // Bytes of a share (shareable) that another request's blocks hold: none where the request takes
  // over cached blocks that nobody holds.
  double held_bytes(std::size_t i, std::int64_t share) const {
    return share > 0 && holder_[prompt_of(i)] >= 0 ? pool_.bytes_for(share) : 0.0;
  }

  // Admits request i's share of its prefix (shareable); with no request holding it, i holds it.
  void take_prompt(std::size_t i, std::int64_t share) {
    if (!sharing_) return;
    Request& r = reqs_[i];
    std::int64_t& h = holder_[prompt_of(i)];
    if (share > 0 && h >= 0) {
      r.kv = r.claimed = share;
      r.shared_bytes = pool_.bytes_for(share);
    } else if (h < 0) {
      h = static_cast<std::int64_t>(i);
      r.kv = share;  // cached blocks taken over: not prefilled, claimed with the rest
    }
  }

  // A request that leaves (finished or preempted) while holding its prefix's blocks hands them to
  // a running request of the same prefix, which now claims the blocks it shared (a block is freed
  // when no request references it). With none running the blocks go, though a replica's one
  // shared prefix stays findable (cached_, shareable).
  void release_prompt(std::size_t i) {
    if (!sharing_) return;
    Request& r = reqs_[i];
    r.shared_bytes = 0;
    std::int64_t& h = holder_[prompt_of(i)];
    if (h != static_cast<std::int64_t>(i)) return;
    h = -1;
    if (group_ == 1)
      cached_ = std::max(cached_, std::min({r.claimed, r.input, prefix_}) / pool_.block * pool_.block);
    for (std::size_t j : running_) {
      Request& m = reqs_[j];
      if (j == i || prompt_of(j) != prompt_of(i) || m.done >= 0 || m.kv == 0) continue;
      used_ += m.shared_bytes;
      m.kv_bytes += m.shared_bytes;
      m.shared_bytes = 0;
      h = static_cast<std::int64_t>(j);
      return;
    }
  }

  // Bytes of the blocks a request claims for `tokens` of context: less the prefix blocks another
  // request holds.
  double own_bytes(const Request& r, std::int64_t tokens) const {
    return pool_.bytes_for(tokens) - r.shared_bytes;
  }

  // Claims blocks for `tokens` tokens of a request's context (claims only grow).
  void claim(Request& r, std::int64_t tokens) {
    if (tokens <= r.claimed) return;
    const double need = own_bytes(r, tokens);
    used_ += need - r.kv_bytes;
    r.kv_bytes = need;
    r.claimed = pool_.covered(tokens);
  }

  // `n` tokens of a request land at the end of this step: one after a token of the step before is
  // a regular gap (the step's), the others are timed from where the request's last token came.
  __attribute__((always_inline)) void emitted(Request& r, std::int64_t n) {
    if (n == 1 && r.last_step == step_no_ - 1) {
      ++regular_gaps_;
    } else if (const int slot = gap_slot(n); r.last_step == step_no_ - 1 && slot > 0) {
      shared_[slot - 1] += d(n);
    } else if (n > 0) {
      other_gaps_.push_back({n, r.last_step, r.last_step == step_no_ - 1 ? t_ : r.last_time});
    } else {
      pause(r);
      return;
    }
    r.last_step = step_no_;
  }

  // A request scheduled in a step: its part of the step's groups (all decoding sequences as one
  // group at their mean context, since decode attention reads the whole cache, linear in the
  // summed context; one group per prompt chunk), and its tokens, which land at the end of the
  // step. Nothing between scheduling and the step's end reads a scheduled request (preemption
  // only takes requests not yet scheduled), so they land here; only the time of a first token
  // waits for the step's duration. Noted on the way: whether any request is done (the retiring
  // pass runs only then) and the fewest tokens any has left to generate.
  __attribute__((always_inline)) void schedule(std::size_t i, std::int64_t tokens, bool prefill) {
    ++scheduled_;
    Request& r = reqs_[i];
    if (prefill) {
      groups_.push_back({1, tokens, r.kv + tokens});
      prefill_tokens_ += tokens;
    } else {
      ++decode_n_;
      decode_ctx_ += r.kv + 1;
    }
    if (prefill || spec_k_ == 0) {
      r.kv += prefill ? tokens : 1;
      if (!prefill || r.kv >= r.target) {  // else more chunks to come
        ++r.generated;
        if (r.first_token < 0) {
          first_tokens_.push_back(i);
          r.last_step = step_no_;
        } else {
          emitted(r, 1);
        }
      }
    } else {
      // A verified speculation: the expected tokens per step, emitted whole (the remainder
      // carried to the next step, so a request's total follows the mean exactly).
      r.credit += pool_.spec_gain;
      const auto n = std::min(static_cast<std::int64_t>(std::floor(r.credit)), r.output - r.generated);
      r.credit -= std::floor(r.credit);
      r.kv += n;
      r.generated += n;
      emitted(r, n);
    }
    any_done_ = any_done_ || is_done(r);
    fewest_left_ = std::min(fewest_left_, r.output - r.generated);
  }

  StepModel& model_;
  const PoolLimits& pool_;
  const ServingSpec& sv_;
  const Mode mode_;
  std::vector<Request>& reqs_;
  const std::int64_t clients_;
  const bool closed_;
  const bool keep_timeline_;
  ReplicaRun& run_;
  const std::int64_t step_budget_, work_budget_;
  const double horizon_;
  // A decoding sequence's query tokens per step: its next token, or the k drafts and the token
  // after them when the target verifies a speculation (they count against the token budget and
  // claim KV slots ahead, as vLLM's lookahead slots do).
  const std::int64_t spec_k_;
  const double capacity_;
  const std::int64_t decode_step_tokens_;
  const bool has_draft_;
  // A speculating sequence's tokens in one step whose gaps a step records by count (StepSpan::shared).
  const std::int64_t shared_n_;
  // Samples per prompt (ServingSpec::prompt_group), and for each prompt of the replica (or its one
  // shared prefix) the request that holds its KV blocks (-1: none).
  const std::int64_t group_;
  // The tokens a request may share (the whole prompt within a group, else shared_prefix_len) and
  // whether any are.
  const std::int64_t prefix_;
  const bool sharing_;
  std::vector<std::int64_t> holder_;
  std::int64_t cached_ = 0;  // the shared prefix's tokens the cache holds once computed (group_ 1)

  std::size_t next_ = 0;  // next request not yet arrived (closed: not yet sent)
  std::int64_t in_flight_ = 0;
  double t_ = 0, used_ = 0;
  std::deque<std::size_t> waiting_;
  std::vector<std::size_t> running_;
  std::vector<SeqGroup> groups_, draft_groups_;
  std::vector<std::size_t> first_tokens_;  // requests whose first token lands this step
  // This step: its index, what it schedules, its tokens after one of the step before (each such
  // gap is the step) and the others, whether any request is done and the fewest tokens any has
  // left, its host time.
  std::int64_t step_no_ = 0;
  std::int64_t decode_n_ = 0, decode_ctx_ = 0, prefill_tokens_ = 0, scheduled_ = 0;
  std::int64_t regular_gaps_ = 0;
  double shared_[2] = {0, 0};  // tokens that came shared_n_ (or one more) at once after one the step before
  double step_start_ = 0;
  std::vector<Emitted> other_gaps_;
  std::vector<std::int64_t> last_tokens_;  // a speculative stretch: what each sequence that it ends gets last
  bool any_done_ = false;
  bool forming_ = false;  // static batching: the batch still takes waiting requests
  std::int64_t fewest_left_ = 0;
  double host_s_ = 0;
};

// A replica's inter-token gaps on `clock` (entry j: the end of step j - 1): each step's regular
// gaps last the step, the others from the end of the step with the previous token.
void clock_gaps(const ReplicaRun& run, const std::vector<double>& clock) {
  if (!run.gaps) return;
  std::size_t j = 0, hint[3] = {0, 0, 0};  // each slot's last bin: the steps change slowly
  for (const StepSpan& span : run.spans)
    for (std::int64_t k = 0; k < span.steps; ++k, ++j) {
      const double step = clock[j + 1] - clock[j];
      run.gaps->add(step, span.gaps, hint[0]);
      for (int c = 0; c < 2; ++c)
        run.gaps->add(step / d(run.slot_tokens(c + 1)), span.shared[c], hint[c + 1]);
    }
  for (const ReplicaRun::LongGap& g : run.long_gaps) {
    const double from = clock[static_cast<std::size_t>(std::max<std::int64_t>(g.from, -1) + 1)];
    run.gaps->add((clock[static_cast<std::size_t>(g.to + 1)] - from) / d(g.tokens), d(g.tokens));
  }
}

}  // namespace

bool simulate_replica(StepModel& pool, Mode mode, std::vector<Request>& reqs, std::int64_t group,
                      std::int64_t clients, bool keep_timeline, ReplicaRun& run, const SimBudget& budget) {
  return ReplicaSim(pool, mode, reqs, group, clients, keep_timeline, run, budget).simulate();
}

std::vector<double> lockstep_clock(const std::vector<const std::vector<StepSpan>*>& replicas) {
  std::int64_t longest = 0;
  for (const auto* spans : replicas) {
    std::int64_t n = 0;
    for (const StepSpan& span : *spans) n += span.steps;
    longest = std::max(longest, n);
  }
  // The slowest rank's time at each step (a rank that has finished waits: it adds nothing), one
  // rank's spans at a time (a tight loop over each span's steps), then summed step by step.
  std::vector<double> slowest(static_cast<std::size_t>(longest), 0.0);
  for (const auto* spans : replicas) {
    std::size_t j = 0;
    for (const StepSpan& span : *spans) {
      for (std::int64_t k = 0; k < span.steps; ++k, ++j)
        slowest[j] = std::max(slowest[j], span.first + span.slope * d(k));
    }
  }
  std::vector<double> clock(static_cast<std::size_t>(longest) + 1, 0.0);
  for (std::size_t j = 0; j < slowest.size(); ++j) clock[j + 1] = clock[j] + slowest[j];
  return clock;
}

// Attention data parallelism (tp 1, the experts over ep of the dp ranks): the ranks of an
// expert-parallel group meet in every MoE layer's dispatch and combine, so they step together and
// a step takes as long as its slowest rank's (TensorRT-LLM tech blog 10, "ADP Balance Strategy":
// time_i = max over ranks m of time_{i,m}; a rank that prefills a prompt while the others decode
// holds them all; with its round-robin assignment DeepSeek-V3 on 8 GB200 ran at a balance ratio of
// 54%). Each rank schedules its own requests as simulate_replica() does; with offline or closed-loop
// arrivals its choices depend on its steps, not on the clock, so the group's clock is exact: step
// j of every rank ends at the sum over steps 0..j of the slowest rank's time (a rank that has
// finished waits). Every request's first-token and end times, and the chart's samples, move to
// that clock. `runs[k]` is replica `reps[k]`; a group is ep consecutive replicas (the ep ranks
// are placed next to each other at tp 1, pp 1).
void lockstep(std::vector<ReplicaRun*>& runs, const std::vector<std::int64_t>& reps, std::int64_t replicas,
              std::int64_t ep, std::int64_t prompt_group, std::vector<Request>& all) {
  for (std::int64_t g = 0; g * ep < replicas; ++g) {
    std::vector<ReplicaRun*> group;
    std::vector<std::int64_t> members;
    std::vector<const std::vector<StepSpan>*> spans;
    for (std::size_t k = 0; k < runs.size(); ++k)
      if (reps[k] / ep == g) {
        group.push_back(runs[k]);
        members.push_back(reps[k]);
        spans.push_back(&runs[k]->spans);
      }
    const std::vector<double> clock = lockstep_clock(spans);
    for (const ReplicaRun* run : group) clock_gaps(*run, clock);
    if (group.size() < 2) continue;  // its own clock: nothing moves
    for (std::size_t m = 0; m < group.size(); ++m) {
      const std::vector<double>& ends = group[m]->span_ends;
      if (ends.empty()) continue;
      std::vector<std::int64_t> steps;  // the replica's steps by the end of each span
      std::int64_t n = 0;
      for (const StepSpan& span : group[m]->spans) steps.push_back(n += span.steps);
      // Events land at the end of a step (a first token, a request's end, a closed-loop client's
      // next request, a chart sample): the step that ended at `local` on the replica's own clock.
      const auto span_at = [&](double local) {
        const auto it = std::lower_bound(ends.begin(), ends.end(), local);
        return it == ends.end() ? ends.size() - 1 : static_cast<std::size_t>(it - ends.begin());
      };
      const auto common = [&](double local) {
        return local <= 0 ? 0.0 : clock[static_cast<std::size_t>(steps[span_at(local)])];
      };
      for_each_of_replica(static_cast<std::size_t>(members[m]), prompt_group, replicas, all.size(),
                          [&](std::size_t i) {
                            Request& r = all[i];
                            r.arrival = common(r.arrival);
                            if (r.first_token >= 0) r.first_token = common(r.first_token);
                            if (r.done >= 0) r.done = common(r.done);
                          });
      // A sample's step time is its iteration's first step (a decode stretch's steps follow it).
      for (ServingStepSample& sample : group[m]->timeline) {
        const std::size_t k = span_at(sample.t_s);
        const auto first = static_cast<std::size_t>(
            group[m]->spans[k].steps > 1 && k > 0 ? steps[k - 1] : steps[k] - group[m]->spans[k].steps + 1);
        sample.t_s = clock[static_cast<std::size_t>(steps[k])];
        sample.step_s = clock[first] - clock[first - 1];
      }
    }
  }
}

}  // namespace optimus
