//! What the engines record while they run: per-request TTFT, TPOT and E2E, token-level ITL, and
//! the time integrals behind mean batch and KV utilization, restricted to a steady-state window.
//!
//! Definitions are MODEL.md §3: `TTFT = f − a` (first token of the first attempt; vidur keeps it
//! across preemptions), `TPOT = (e − f)/(O − 1)`, `E2E = e − a`, `ITL_j = τ_j − τ_{j−1}`.
//!
//! The window (MODEL.md §3 "discard a warm-up and cool-down window"; §6.6): it opens at the
//! completion that ends the warm-up (the first `warmup_fraction` of a replica's requests) and
//! closes when the replica stops being in steady state — in a closed loop, at the completion that
//! releases the last request (after it the concurrency drains); in an open loop, when the last
//! request arrives (after it the queue drains). Both ends fall on iteration boundaries, so an
//! iteration is wholly inside or outside the window. Runs too short for that measure everything.

use super::histogram::LogHistogram;
use serde::{Deserialize, Serialize};

/// One request's latency bounds, TTFT and TPOT (MODEL.md §3 goodput, DistServe [S10]): a request
/// within both counts toward goodput. Not `scenario::Slo`, the targets at a percentile that
/// decisions check tails against; this is what each simulated request is held to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RequestSlo {
    pub ttft_ms: f64,
    pub tpot_ms: f64,
}

/// Request- and token-level latency samples, shared by every replica of a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LatencySamples {
    pub ttft: LogHistogram,
    pub tpot: LogHistogram,
    pub e2e: LogHistogram,
    /// Inter-token latency, one sample per emission (per streamed chunk under speculation).
    pub itl: LogHistogram,
}

/// Totals of one replica's measurement window.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WindowTotals {
    pub duration_s: f64,
    /// Requests completed inside the window.
    pub completed: u32,
    /// Requests that joined the replica's queue inside the window (`Recorder::on_arrival`): open
    /// loop, those arriving after the warm-up up to and including the last arrival; closed loop,
    /// those released. With `completed`, whether the queue grew over the window.
    pub arrived: u32,
    /// Output tokens emitted inside the window, whichever request they belong to.
    pub emitted_tokens: u64,
    /// Prompt tokens (cached or not) of requests whose first token came inside the window.
    pub served_prompt_tokens: u64,
    /// Time the replica spent running iterations.
    pub busy_s: f64,
    /// `Σ batch · dt`: sequences in the batch, integrated over busy time.
    pub batch_seconds: f64,
    /// `Σ blocks_used · dt`, integrated over the window (idle time holds no blocks).
    pub block_seconds: f64,
    pub peak_blocks: u32,
    /// `Σ (e − f)` and `Σ (O − 1)` over completed requests: the token-weighted TPOT.
    pub decode_seconds: f64,
    pub decode_tokens: u64,
    /// Requests meeting the SLO and their output tokens.
    pub slo_met: u32,
    pub slo_met_output_tokens: u64,
}

/// Where a replica's window ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowEnd {
    /// After this many requests have left (completed or been rejected): closed loop, `N − C`.
    AfterDone(u32),
    /// When the last request arrives: open loop.
    AtLastArrival,
    /// When the run ends (too few requests for a steady state).
    AtRunEnd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    WarmUp,
    Measuring,
    Closed,
}

/// One finished request, as the metrics need it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Finished {
    pub arrival_s: f64,
    pub first_token_s: f64,
    pub finish_s: f64,
    pub output_tokens: u32,
}

/// Records one replica's run into the shared samples and its own window totals.
#[derive(Debug)]
pub struct Recorder<'a> {
    samples: &'a mut LatencySamples,
    slo: Option<RequestSlo>,
    phase: Phase,
    start_s: f64,
    end_s: f64,
    done: u32,
    warmup: u32,
    end: WindowEnd,
    totals: WindowTotals,
}

impl<'a> Recorder<'a> {
    /// A recorder that measures after `warmup` requests have left and until `end`.
    pub fn new(
        samples: &'a mut LatencySamples,
        slo: Option<RequestSlo>,
        warmup: u32,
        end: WindowEnd,
    ) -> Recorder<'a> {
        Recorder {
            samples,
            slo,
            phase: if warmup == 0 {
                Phase::Measuring
            } else {
                Phase::WarmUp
            },
            start_s: 0.0,
            end_s: 0.0,
            done: 0,
            warmup,
            end,
            totals: WindowTotals::default(),
        }
    }

    /// Whether samples taken now count.
    pub fn measuring(&self) -> bool {
        self.phase == Phase::Measuring
    }

    /// An iteration of `dt_s` with `batch` sequences holding `blocks` KV blocks starts now.
    /// Call it before the iteration's tokens and completions are recorded.
    pub fn on_iteration(&mut self, dt_s: f64, batch: u32, blocks: u32) {
        if self.measuring() {
            self.totals.busy_s += dt_s;
            self.totals.batch_seconds += f64::from(batch) * dt_s;
            self.totals.block_seconds += f64::from(blocks) * dt_s;
            self.totals.peak_blocks = self.totals.peak_blocks.max(blocks);
        }
    }

    /// `tokens` output tokens were emitted by an iteration recorded with `on_iteration`.
    pub fn on_emitted(&mut self, tokens: u64) {
        if self.measuring() {
            self.totals.emitted_tokens += tokens;
        }
    }

    /// A request's first token came: its prompt of `prompt_tokens` has been served.
    pub fn on_prompt_served(&mut self, prompt_tokens: u32) {
        if self.measuring() {
            self.totals.served_prompt_tokens += u64::from(prompt_tokens);
        }
    }

    /// `count` inter-token gaps of `gap_s`.
    pub fn on_gaps(&mut self, gap_s: f64, count: u64) {
        if self.measuring() {
            self.samples.itl.add(gap_s, count);
        }
    }

    /// A request that arrived at `arrival_s` joined the queue (a rejected one does not). It counts
    /// when it arrived inside the window: the window opens at a completion, and an open loop
    /// takes its arrivals at iteration boundaries, so one taken just after the window opened may
    /// have arrived before it.
    pub fn on_arrival(&mut self, arrival_s: f64) {
        if self.measuring() && arrival_s >= self.start_s {
            self.totals.arrived += 1;
        }
    }

    /// A request left without being served (rejected): it advances the window like a completion.
    pub fn on_rejected(&mut self, now_s: f64) {
        self.on_done(now_s);
    }

    /// A request completed.
    pub fn on_finished(&mut self, request: &Finished) {
        if self.measuring() {
            let ttft = request.first_token_s - request.arrival_s;
            let e2e = request.finish_s - request.arrival_s;
            let decode_s = request.finish_s - request.first_token_s;
            let gaps = request.output_tokens.saturating_sub(1);
            let tpot = if gaps > 0 {
                Some(decode_s / f64::from(gaps))
            } else {
                None
            };
            self.samples.ttft.add(ttft, 1);
            self.samples.e2e.add(e2e, 1);
            if let Some(tpot) = tpot {
                self.samples.tpot.add(tpot, 1);
            }
            let t = &mut self.totals;
            t.completed += 1;
            t.decode_seconds += decode_s;
            t.decode_tokens += u64::from(gaps);
            if let Some(slo) = self.slo {
                let meets_ttft = ttft * 1e3 <= slo.ttft_ms;
                let meets_tpot = tpot.is_none_or(|tpot| tpot * 1e3 <= slo.tpot_ms);
                if meets_ttft && meets_tpot {
                    t.slo_met += 1;
                    t.slo_met_output_tokens += u64::from(request.output_tokens);
                }
            }
        }
        self.on_done(request.finish_s);
    }

    fn on_done(&mut self, now_s: f64) {
        self.done = self.done.saturating_add(1);
        if self.phase == Phase::WarmUp && self.done >= self.warmup {
            self.phase = Phase::Measuring;
            self.start_s = now_s;
        } else if self.phase == Phase::Measuring && self.end == WindowEnd::AfterDone(self.done) {
            self.close(now_s);
        }
    }

    /// The last request of an open loop arrived now.
    pub fn on_last_arrival(&mut self, now_s: f64) {
        if self.end != WindowEnd::AtLastArrival {
            return;
        }
        match self.phase {
            Phase::Measuring => self.close(now_s),
            // Still warming up: the run is too short for a drained steady state; measure to the end.
            Phase::WarmUp => self.end = WindowEnd::AtRunEnd,
            Phase::Closed => {}
        }
    }

    fn close(&mut self, now_s: f64) {
        self.phase = Phase::Closed;
        self.end_s = now_s;
    }

    /// The run ended at `now_s`: the window totals.
    pub fn finish(mut self, now_s: f64) -> WindowTotals {
        if self.phase == Phase::Measuring {
            self.close(now_s);
        }
        if self.phase == Phase::Closed {
            self.totals.duration_s = (self.end_s - self.start_s).max(0.0);
        }
        self.totals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(at: f64) -> Finished {
        Finished {
            arrival_s: at - 1.0,
            first_token_s: at - 0.5,
            finish_s: at,
            output_tokens: 6,
        }
    }

    /// Closed loop with 10 requests at concurrency 2, 20 % warm-up: the window runs from the 2nd
    /// to the 8th request leaving and holds requests 3..=8.
    #[test]
    fn window_opens_after_warmup_and_closes_at_last_release() {
        let mut samples = LatencySamples::default();
        let mut r = Recorder::new(
            &mut samples,
            Some(RequestSlo {
                ttft_ms: 600.0,
                tpot_ms: 50.0,
            }),
            2,
            WindowEnd::AfterDone(8),
        );
        for i in 1..=10 {
            r.on_iteration(1.0, 2, 4);
            r.on_finished(&finished(f64::from(i)));
        }
        let t = r.finish(10.0);
        assert_eq!(t.completed, 6);
        assert_eq!(t.duration_s, 6.0);
        assert_eq!(t.busy_s, 6.0);
        assert_eq!(t.decode_tokens, 30);
        assert_eq!(t.slo_met, 0, "TPOT 100 ms misses 50 ms");
        assert_eq!(samples.ttft.count(), 6);
        assert_eq!(samples.tpot.count(), 6);
    }

    #[test]
    fn open_loop_too_short_measures_to_the_end() {
        let mut samples = LatencySamples::default();
        let mut r = Recorder::new(&mut samples, None, 3, WindowEnd::AtLastArrival);
        r.on_last_arrival(0.5);
        for i in 1..=5 {
            r.on_finished(&finished(f64::from(i)));
        }
        let t = r.finish(5.0);
        assert_eq!(t.completed, 2);
        assert_eq!(t.duration_s, 2.0);
    }

    /// Arrivals count from the completion that opens the window up to the last arrival, which
    /// closes it: not those during the warm-up, nor one taken after the window opened that
    /// arrived before it, nor a closed window's.
    #[test]
    fn arrivals_count_inside_the_window() {
        let mut samples = LatencySamples::default();
        let mut r = Recorder::new(&mut samples, None, 2, WindowEnd::AtLastArrival);
        r.on_arrival(0.5);
        r.on_finished(&finished(1.0));
        r.on_finished(&finished(2.0));
        r.on_arrival(1.5);
        for at in [2.0, 2.5, 3.0] {
            r.on_arrival(at);
        }
        r.on_last_arrival(3.0);
        r.on_arrival(3.5);
        let t = r.finish(4.0);
        assert_eq!(t.arrived, 3);
        assert_eq!(t.duration_s, 1.0);
    }
}
