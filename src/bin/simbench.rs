//! `simbench`: times the discrete-event simulator on its standard runs (`sim::bench`, MODEL.md
//! §6.6 budget: 10,000 requests well under 100 ms natively). Llama-3.1-8B BF16 on one H100, chat
//! lengths, 10,000 requests: an open loop, Poisson at 80 % of the analytic capacity, and a closed
//! loop at concurrency 64. Prints wall time, requests/s and events (scheduler passes) and
//! iterations per second of wall time. Build with `--release`; only this binary reads a clock,
//! never `sim`.

use servecost::scenario::Scenario;
use servecost::sim::bench::{
    BenchRun, StandardBench, BENCH_CONCURRENCY, BENCH_LOAD_FRACTION, BENCH_REQUESTS,
};
use servecost::sim::{simulate, SimConfig, SimResult};
use std::process::ExitCode;
use std::time::Instant;

/// Repetitions per run; the fastest is reported (least disturbed by other processes).
const REPEATS: u32 = 5;

fn time_run(scenario: &Scenario, config: &SimConfig) -> Result<(f64, SimResult), String> {
    let mut best_ms = f64::INFINITY;
    let mut last = None;
    for _ in 0..REPEATS {
        let started = Instant::now();
        let result = simulate(scenario, config).map_err(|e| e.to_string())?;
        best_ms = best_ms.min(started.elapsed().as_secs_f64() * 1e3);
        last = Some(result);
    }
    last.map(|r| (best_ms, r))
        .ok_or_else(|| "no run".to_string())
}

/// The run's line label; `scripts/bench` finds the lines by their first word.
fn label(bench: &StandardBench, run: BenchRun) -> String {
    match run {
        BenchRun::Poisson => format!(
            "poisson {:.1} req/s ({:.0} % of {:.1})",
            BENCH_LOAD_FRACTION * bench.capacity_per_s,
            BENCH_LOAD_FRACTION * 100.0,
            bench.capacity_per_s
        ),
        BenchRun::Closed => format!("closed loop C={BENCH_CONCURRENCY}"),
    }
}

fn main() -> ExitCode {
    let run = || -> Result<(), String> {
        let bench = StandardBench::new()?;
        println!("simbench: llama-3.1-8b bf16, 1x h100-sxm, chat lengths, {BENCH_REQUESTS} requests, best of {REPEATS}");
        for run in BenchRun::ALL {
            let config = bench.config(run);
            let (wall_ms, r) = time_run(&bench.scenario, &config)?;
            let wall_s = wall_ms / 1e3;
            println!(
                "{:<40} wall {wall_ms:7.2} ms | {:>9.0} requests/s | {:>9.0} events/s ({} events) | {:>10.0} iterations/s ({} iterations) | sim: {:.0} out tok/s, TTFT p99 {:.0} ms, TPOT p50 {:.1} ms{}",
                label(&bench, run),
                f64::from(BENCH_REQUESTS) / wall_s,
                r.events as f64 / wall_s,
                r.events,
                r.iterations as f64 / wall_s,
                r.iterations,
                r.output_tok_s,
                r.ttft.p99_ms,
                r.tpot.p50_ms,
                r.truncated
                    .map_or(String::new(), |t| format!(", truncated: {t:?}")),
            );
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("simbench: {message}");
            ExitCode::FAILURE
        }
    }
}
