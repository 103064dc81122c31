//! Disaggregated prefill and decode (issue 14; MODEL.md §4.4): a prefill pool that runs only
//! prompt chunks, a decode pool that runs only decodes, and the KV hand-off between them. Each
//! pool is priced with the same step model as aggregated serving (`step`, `decode`, `ttft`); only
//! the composition of the steps differs (prefill steps carry no decodes, decode steps no chunks).
//!
//! **Operating point.** The slider's concurrency `C` counts requests in flight across the whole
//! system, as under aggregated serving: `C = C_pf + C_d`, the requests in the prefill stage
//! (queued, prefilling or in transfer) and those decoding. By Little's law on each stage
//! `C_pf = X·T_1(X)` and `C_d = X·(E[O] − 1)·τ(B)`, `B = C_d/R_d` per decode replica; the model
//! solves `C_d + X(C_d)·T_1(X(C_d)) = C` for `C_d` by bisection (both terms grow with `C_d`).
//!
//! **Prefill pool** (`R_p` replicas, step budget `T_bud`): a prompt alone takes
//! `t_pf = E[t_prefill(P, 0 decodes)]` (`ttft::prefill_time` over the prompt distribution); under
//! load the steps are full lanes of `T_bud` prompt tokens, so a request's service demand is
//! `s = min(E[P_eff]·t_iter(T_bud)/T_bud, t_pf)` and the pool's capacity `X_p = R_p/s`. Arrivals
//! (the decode pool's completions) queue first come, first served: Kingman's G/G/1 wait per
//! replica `W = u/(1 − u)·(c_a² + c_s²)/2·s` at `u = X·s/R_p` (as `serving::prompt_lane_wait`,
//! with the same `c_a²`, `c_s²`), plus half the running step when busy (`ttft::step_wait`). This
//! is DistServe's M/D/1 prefill queue (Zhong et al., OSDI '24, §3.1) with the variances stated.
//!
//! **KV transfer.** Each prefill GPU of the request's attention rank sends its shard of the
//! prompt's KV (`memory::kv_bytes_per_sequence_rank`; the decode side receives its own shard
//! layout, so the larger of the two per-GPU shards bounds the time) over the link
//! (`scenario::pools::KvLink`): `t_kv = latency + bytes/BW`. The transfer starts when the
//! prefill ends — NVIDIA Dynamo (NIXL: "the KV transfer is non-blocking, allowing GPU forward
//! passes to continue serving other requests"), SGLang PD (Mooncake / NIXL transfer engines) and
//! vLLM's NixlConnector hand the KV over after the prefill forward, not layer by layer (Splitwise
//! overlaps layer by layer; we do not) — and it uses copy engines and NICs, not the pools' step
//! time, so it adds latency, not GPU time.
//!
//! **Decode pool** (`R_d` replicas): the closed loop of `serving` with no prefill work, so
//! `TPOT = τ(B) = t_round(B)/E_tok` with no stalls (`decode::decode_round`) and
//! `X_d = R_d·B/((E[O] − 1)·τ(B))`: the prefill produces the first token, the decode pool the
//! other `E[O] − 1`. `B` is capped by the pool's KV, its engine limit and its step budget; the
//! requests beyond wait for admission (Little's law), counted in TTFT: the first token streams
//! once the decode pool holds the request (SGLang's decode server pre-allocates before it
//! accepts the KV).
//!
//! `TTFT = t_srv + w_step + W + t_pf + t_kv (+ admission waits)`, `E2E = TTFT + (E[O] − 1)·TPOT`,
//! `X = min` of what the pools sustain (the bisection never lets `X` pass `X_p` or `X_d`), and
//! each pool's utilization is `X` over its capacity. Cost is all GPUs of both pools by time
//! (MODEL.md §7), the prefill pool's share attributed to input tokens.

use super::decode::decode_round;
use super::operating_point::{assemble, DisaggFigures, KvLink, OperatingPoint, Steady};
use super::serving::{evaluate_continuous, mean_prefill_time, SATURATION_SHARE};
use super::ttft::step_wait;
use crate::physics::cost::cost_breakdown;
use crate::physics::memory::kv_bytes_per_sequence_rank;
use crate::physics::step::{BatchShape, StepBreakdown};
use crate::physics::workload::inverse_normal_cdf;
use crate::scenario::pools::Pools;
use crate::scenario::{Protocol, Scenario};
use crate::units::Seconds;

/// Highest prefill utilization the closed loop is solved up to; the rest of `C` queues there.
const MAX_PREFILL_UTILIZATION: f64 = 0.995;
/// Prefill-pool utilization from which a point is infeasible, as a full KV cache is (issue 26
/// §5): the prefill pool is a queue whose wait grows as ρ/(1−ρ) (Kingman's formula, the
/// `PrefillPool::wait` above), 19 prefill times at 95 % busy, so past it TTFT is set by a queue
/// that grows without bound with load, not by the configuration.
pub const PREFILL_SATURATED: f64 = 0.95;
/// Prompt lengths the prefill lane's cost per token is averaged over.
const LANE_QUANTILES: u32 = 8;
/// Bisection steps (the interval shrinks 2⁻⁴⁰: far below one request).
const BISECTIONS: u32 = 40;

/// The prefill pool's constants at one scenario (nothing here depends on the concurrency).
#[derive(Debug, Clone, Copy)]
pub struct PrefillPool {
    pub replicas: f64,
    /// Mean prefill time of a prompt alone, `t_pf`.
    pub alone: Seconds,
    /// A full step of `T_bud` prompt tokens.
    pub full_step: Seconds,
    /// Service demand per request, `s`.
    pub service: Seconds,
    /// Prefill cost per prompt token at full lanes.
    pub per_token: Seconds,
    /// `(c_a² + c_s²)/2` of Kingman's formula.
    pub variability: f64,
}

impl PrefillPool {
    pub fn of(prefill: &Scenario) -> PrefillPool {
        let workload = &prefill.workload;
        let prompt = workload.prefill_tokens().max(1.0);
        let lane = f64::from(prefill.step_token_budget().max(1));
        let pp = f64::from(prefill.par.pp.max(1));
        let step = |length: f64| {
            prefill
                .step_cost
                .step(&BatchShape {
                    prefill_tokens: lane / pp,
                    prefill_prompt: length,
                    prefill_chunk: length.min(f64::from(prefill.chunk_tokens)),
                    ..BatchShape::default()
                })
                .total()
                * pp
        };
        let full_step = step(prompt);
        // A token of a long prompt attends to more context: the lane's cost per token is the
        // token-weighted mean over the prompt distribution (midpoint quantiles of the lognormal,
        // as `serving::mean_prefill_time`), not the cost at the mean prompt.
        let sigma = workload.input_sigma;
        let per_token = if sigma > 0.0 {
            let n = f64::from(LANE_QUANTILES);
            let lengths: Vec<f64> = (0..LANE_QUANTILES)
                .map(|i| {
                    let z = inverse_normal_cdf((f64::from(i) + 0.5) / n);
                    (sigma * z - sigma * sigma / 2.0).exp()
                })
                .collect();
            let scale = prompt * n / lengths.iter().sum::<f64>().max(f64::MIN_POSITIVE);
            let (cost, tokens) = lengths.iter().fold((0.0, 0.0), |(c, t), l| {
                let length = (l * scale).max(1.0);
                (c + length * step(length).0, t + length)
            });
            Seconds(cost / tokens.max(f64::MIN_POSITIVE) / lane)
        } else {
            full_step / lane
        };
        let alone = mean_prefill_time(prefill, 0.0);
        let service = Seconds((per_token * prompt).0.min(alone.0));
        let variation = |sigma: f64| (sigma * sigma).exp() - 1.0;
        PrefillPool {
            replicas: f64::from(prefill.replicas.max(1)),
            alone,
            full_step,
            service,
            per_token,
            variability: (variation(workload.output_sigma).min(1.0)
                + variation(workload.input_sigma))
                / 2.0,
        }
    }

    /// Requests/s the pool sustains, `X_p = R_p/s`.
    pub fn capacity(&self) -> f64 {
        self.replicas / self.service.0.max(f64::MIN_POSITIVE)
    }

    pub fn utilization(&self, rate: f64) -> f64 {
        rate * self.service.0 / self.replicas
    }

    /// Queue wait plus the running step's rest at system rate `rate` (Kingman, `step_wait`),
    /// when a share `others` of the requests in flight are other streams (`(C − 1)/C`: a lone
    /// request in a closed loop finds the pool idle, as in `serving::prompt_lane_wait`).
    pub fn wait(&self, rate: f64, others: f64) -> Seconds {
        let u = self.utilization(rate).clamp(0.0, MAX_PREFILL_UTILIZATION);
        (self.service * (u / (1.0 - u) * self.variability) + step_wait(self.full_step, u))
            * others.clamp(0.0, 1.0)
    }
}

/// Mean time to hand one prompt of `prompt` tokens' KV from the prefill to the decode pool.
pub fn kv_transfer_time(decode: &Scenario, pools: &Pools, prompt: f64) -> Seconds {
    let prefill = &pools.prefill;
    let sent = kv_bytes_per_sequence_rank(&prefill.arch, prefill.kv_precision, prefill.par, prompt);
    let received =
        kv_bytes_per_sequence_rank(&decode.arch, decode.kv_precision, decode.par, prompt);
    let bytes = if sent.0 > received.0 { sent } else { received };
    pools.link.latency + bytes / pools.link.bandwidth
}

/// Sequences one decode replica batches at most: KV, engine limit and the step budget (each
/// decode takes `1 + γ` tokens of it).
pub fn decode_batch_cap(decode: &Scenario) -> f64 {
    let slots = 1.0 + decode.spec.map_or(0.0, |s| s.len.max(0.0));
    f64::from(decode.kv_capacity_per_replica.max(1))
        .min(f64::from(decode.max_num_seqs.max(1)))
        .min(f64::from(decode.step_token_budget().max(1)) / slots)
        .max(1.0)
}

/// Decode tokens per request, `E[O] − 1` (the prefill samples the first).
fn decode_tokens(decode: &Scenario) -> f64 {
    (decode.workload.output_mean - 1.0).max(1e-6)
}

/// The decode pool holding `in_decode` requests: per-replica batch, step, `τ` and rate.
#[derive(Debug, Clone, Copy)]
struct DecodeState {
    batch: f64,
    step: StepBreakdown,
    tau: Seconds,
    rate: f64,
}

fn decode_state(decode: &Scenario, in_decode: f64) -> DecodeState {
    let replicas = f64::from(decode.replicas.max(1));
    let batch = (in_decode / replicas)
        .min(decode_batch_cap(decode))
        .max(0.0);
    let (step, tokens) = decode_round(decode, batch.max(1.0));
    let tau = step.total() / tokens.max(f64::MIN_POSITIVE);
    let rate = replicas * batch / (decode_tokens(decode) * tau.0).max(f64::MIN_POSITIVE);
    DecodeState {
        batch,
        step,
        tau,
        rate,
    }
}

/// Both pools' capacities in requests/s, `(X_p, X_d)` (the decode pool at its batch cap): what
/// the automatic split balances.
pub fn pool_capacities(prefill: &Scenario, decode: &Scenario) -> (f64, f64) {
    let full = f64::from(decode.replicas.max(1)) * decode_batch_cap(decode);
    (
        PrefillPool::of(prefill).capacity(),
        decode_state(decode, full).rate,
    )
}

/// Smallest `x` in `[0, hi]` with `above(x)`, by bisection (`above` is monotone).
fn bisect(hi: f64, above: impl Fn(f64) -> bool) -> f64 {
    let (mut lo, mut hi) = (0.0, hi);
    for _ in 0..BISECTIONS {
        let mid = 0.5 * (lo + hi);
        if above(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// Evaluate a disaggregated scenario at its concurrency (see the module doc); an aggregated one
/// goes to `serving`.
pub fn evaluate_disaggregated(scenario: &Scenario) -> OperatingPoint {
    let Some(pools) = scenario.pools.as_deref() else {
        return evaluate_continuous(scenario);
    };
    let workload = &scenario.workload;
    let concurrency = scenario.concurrency.max(1);
    let c = f64::from(concurrency);
    let prefill = PrefillPool::of(&pools.prefill);
    let transfer = kv_transfer_time(scenario, pools, workload.input_mean);
    let ceiling = MAX_PREFILL_UTILIZATION * prefill.capacity();
    let others = (c - 1.0) / c;
    // The server overhead is latency beside the engines (`ttft`), not part of the loop's cycle.
    let stage_one = |rate: f64| prefill.wait(rate, others) + prefill.alone + transfer;
    let rate_at = |in_decode: f64| decode_state(scenario, in_decode).rate.min(ceiling);
    let in_system = |in_decode: f64| {
        let rate = rate_at(in_decode);
        in_decode + rate * stage_one(rate).0
    };
    // The decode population beyond which the prefill pool, not the decode pool, sets the rate.
    let saturating = if decode_state(scenario, c).rate >= ceiling {
        bisect(c, |d| decode_state(scenario, d).rate >= ceiling)
    } else {
        c
    };
    let in_decode = if in_system(saturating) <= c {
        saturating
    } else {
        bisect(saturating, |d| in_system(d) >= c)
    };
    let state = decode_state(scenario, in_decode);
    let rate = state.rate.min(ceiling).max(f64::MIN_POSITIVE);
    // Requests the prefill queue holds beyond Kingman's line once the pool is the bottleneck, and
    // those waiting for a decode slot: Little's law on each line.
    let queued = (c - in_system(in_decode)).max(0.0);
    let replicas = f64::from(scenario.replicas.max(1));
    let admission = (in_decode - state.batch * replicas).max(0.0);
    let queue_wait = prefill.wait(rate, others) + Seconds((queued + admission) / rate);
    let ttft = scenario.server_overhead + queue_wait + prefill.alone + transfer;
    let e2e = ttft + state.tau * decode_tokens(scenario);
    let prefill_gpus = pools.prefill.gpu_count;
    let total = scenario.total_gpus().max(1);
    let prefill_share = f64::from(prefill_gpus) / f64::from(total);
    let kv_cap = f64::from(scenario.kv_capacity_per_replica.max(1));
    let engine_cap = f64::from(scenario.max_num_seqs.max(1));
    let per_replica = in_decode / replicas;
    let mut point = assemble(
        scenario,
        Steady {
            concurrency,
            busy_replicas: scenario.replicas.max(1),
            batch: state.batch,
            kv_sequences: state.batch,
            decode: state.step,
            c_pf: prefill.per_token,
            requests_per_s_replica: rate / replicas,
            prefill_share,
            tpot: state.tau,
            tau_per_token: state.tau,
            ttft,
            e2e,
            over_kv: per_replica > kv_cap,
            over_engine: per_replica > engine_cap,
        },
    );
    point.gpus = total;
    point.output_tok_s_per_gpu = point.output_tok_s / f64::from(total);
    point.cost = scenario.usd_per_gpu_hour.map(|usd| {
        cost_breakdown(
            total,
            usd,
            point.output_tok_s,
            point.requests_per_s * workload.input_mean,
            prefill_share,
        )
    });
    point.usd_per_m_output = point.cost.map(|c| c.usd_per_m_output);
    point.usd_per_m_input = point.cost.map(|c| c.usd_per_m_input);
    point.usd_per_m_blended = point.cost.map(|c| c.usd_per_m_blended);
    let (_, decode_capacity) = pool_capacities(&pools.prefill, scenario);
    let prefill_utilization = prefill.utilization(rate).min(1.0);
    let decode_utilization = (rate / decode_capacity.max(f64::MIN_POSITIVE)).min(1.0);
    if prefill_utilization >= PREFILL_SATURATED && point.fits {
        point.fits = false;
        point.warnings.push(format!(
            "the prefill pool is {:.0} % busy: requests queue {:.0} ms for prefill, a queue that grows without bound with load, so this point counts as infeasible (as a full KV cache does); add prefill GPUs or lower the concurrency",
            100.0 * prefill_utilization,
            queue_wait.ms()
        ));
    }
    if prefill_utilization >= SATURATION_SHARE
        || state.batch >= SATURATION_SHARE * decode_batch_cap(scenario)
    {
        point.saturated = true;
        if scenario.protocol == Protocol::Steady {
            point.headline_source = crate::model::operating_point::HeadlineSource::Simulator;
        }
    }
    point.disagg = Some(DisaggFigures {
        serving: crate::scenario::pools::Serving::Disaggregated,
        prefill_gpus,
        decode_gpus: scenario.gpu_count,
        prefill_replicas: pools.prefill.replicas,
        decode_replicas: scenario.replicas,
        prefill_tp: pools.prefill.par.tp,
        decode_tp: scenario.par.tp,
        kv_transfer_ms: transfer.ms(),
        kv_link: if pools.link.nvlink {
            KvLink::Nvlink
        } else {
            KvLink::Network
        },
        prefill_queue_ms: queue_wait.ms(),
        prefill_utilization,
        decode_utilization,
    });
    point
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::evaluate;
    use crate::scenario::ScenarioInput;

    fn qwen(edit: impl FnOnce(&mut ScenarioInput)) -> Scenario {
        let mut input = ScenarioInput {
            model: "qwen3-32b".into(),
            gpu: "h200-sxm".into(),
            gpu_count: 8.0,
            precision: crate::physics::precision::Precision::Fp8,
            kv_precision: Some(crate::physics::precision::KvPrecision::Fp8),
            input_len: 4000.0,
            output_len: 500.0,
            length_dist: crate::scenario::LengthDist::Fixed,
            serving: crate::scenario::pools::Serving::Disaggregated,
            prefill_gpus: Some(2.0),
            prefill_tp: Some(1.0),
            decode_gpus: Some(6.0),
            decode_tp: Some(2.0),
            ..ScenarioInput::default()
        };
        edit(&mut input);
        Scenario::try_from(input).expect("valid")
    }

    /// A lone request: nothing queues, so TTFT is the server overhead, the prompt's prefill and
    /// the transfer; TPOT is the decode pool's step alone; `X = 1/E2E` (Little, C = 1).
    #[test]
    fn a_lone_request_sees_prefill_then_transfer_then_clean_decodes() {
        let s = qwen(|i| i.concurrency = 1.0);
        let pools = s.pools.as_deref().expect("pools");
        let point = evaluate(&s);
        let figures = point.disagg.expect("figures");
        let prefill = PrefillPool::of(&pools.prefill);
        let transfer = kv_transfer_time(&s, pools, 4000.0);
        let expected = s.server_overhead + prefill.alone + transfer;
        assert!(
            (point.ttft_ms / expected.ms() - 1.0).abs() < 1e-3,
            "{} vs {}",
            point.ttft_ms,
            expected.ms()
        );
        let tau = decode_round(&s, 1.0).0.total_ms;
        assert!((point.tpot_ms - tau).abs() < 1e-9);
        let cycle_s = (point.e2e_ms - s.server_overhead.ms()) / 1e3;
        assert!((point.requests_per_s * cycle_s - 1.0).abs() < 1e-6);
        assert_eq!((figures.prefill_gpus, figures.decode_gpus), (2, 6));
        assert_eq!((figures.prefill_replicas, figures.decode_replicas), (2, 3));
        assert_eq!(point.gpus, 8);
        assert_eq!(figures.kv_link, KvLink::Nvlink);
    }

    /// 4000 tokens of Qwen3-32B's FP8 KV: 64 layers × 8 heads × 128 × 2 × 1 byte = 128 KiB per
    /// token, 524 MB in all; one H200 sends it at 450 GB/s × link efficiency over NVLink, and
    /// across nodes at 50 GB/s, ~9× slower.
    #[test]
    fn the_transfer_is_the_prompts_kv_over_the_link() {
        let s = qwen(|_| {});
        let pools = s.pools.as_deref().expect("pools");
        let t = kv_transfer_time(&s, pools, 4000.0);
        let bytes = 4000.0 * 64.0 * 8.0 * 128.0 * 2.0;
        let expected = NVLINK_MS + bytes / pools.link.bandwidth.0 * 1e3;
        assert!(
            (t.ms() / expected - 1.0).abs() < 0.01,
            "{} vs {expected}",
            t.ms()
        );
        let far = qwen(|i| {
            i.prefill_gpus = Some(8.0);
            i.decode_gpus = Some(8.0);
        });
        let far_t = kv_transfer_time(&far, far.pools.as_deref().expect("pools"), 4000.0);
        assert!(far_t.0 > 5.0 * t.0, "{far_t:?} vs {t:?}");
    }
    const NVLINK_MS: f64 = crate::scenario::pools::NVLINK_TRANSFER_LATENCY_MS;

    /// Little's law across both stages, throughput bounded by both pools, utilizations in [0, 1],
    /// and more requests in flight never lower the rate.
    #[test]
    fn the_closed_loop_is_consistent_and_bounded_by_both_pools() {
        let mut last = 0.0;
        for c in [1.0, 8.0, 64.0, 256.0, 1024.0] {
            let s = qwen(|i| i.concurrency = c);
            let point = evaluate(&s);
            let pools = s.pools.as_deref().expect("pools");
            let (x_p, x_d) = pool_capacities(&pools.prefill, &s);
            let f = point.disagg.expect("figures");
            assert!(point.requests_per_s <= x_p.min(x_d) * (1.0 + 1e-9), "C={c}");
            assert!(point.requests_per_s >= last * (1.0 - 1e-9), "C={c}");
            last = point.requests_per_s;
            let little = point.requests_per_s * (point.e2e_ms - s.server_overhead.ms()) / 1e3;
            assert!((little / c - 1.0).abs() < 1e-3, "C={c}: {little}");
            assert!((0.0..=1.0).contains(&f.prefill_utilization));
            assert!((0.0..=1.0).contains(&f.decode_utilization));
        }
    }

    /// Decode steps carry no prefill: TPOT is the pure decode step at the batch, where the
    /// aggregated replica at the same per-GPU load stalls for prompt chunks.
    #[test]
    fn decodes_do_not_stall_for_prompts() {
        let s = qwen(|i| i.concurrency = 64.0);
        let point = evaluate(&s);
        assert!((point.tpot_ms - point.decode_ms_per_token).abs() < 1e-9);
        let aggregated = evaluate(&qwen(|i| {
            i.concurrency = 64.0;
            i.serving = crate::scenario::pools::Serving::Aggregated;
            i.tp = Some(2.0);
        }));
        assert!(aggregated.tpot_ms > aggregated.decode_ms_per_token);
        assert!(aggregated.disagg.is_none());
    }
}
