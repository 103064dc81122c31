//! The native `servecost` CLI: a thin shell over `servecost::cli::run`.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = servecost::cli::run(&args);
    print!("{}", outcome.stdout);
    eprint!("{}", outcome.stderr);
    std::process::exit(outcome.code);
}

#[cfg(target_arch = "wasm32")]
fn main() {}
