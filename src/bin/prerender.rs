//! Prints the default view's first screen as static HTML (`page::first_screen`), which
//! `scripts/build-tools` puts into the built `index.html` so that a chart paints before any wasm
//! runs (issue 28 §8).

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    match servecost::page::first_screen::default_first_screen() {
        Ok(html) => println!("{html}"),
        Err(message) => {
            eprintln!("prerender: {message}");
            std::process::exit(1);
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}
