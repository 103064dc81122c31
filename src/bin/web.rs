//! The wasm entry picked by Trunk: installs the panic hook and mounts the Yew app.

#[cfg(target_arch = "wasm32")]
fn main() {
    servecost::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    println!("the `web` binary is the browser entry; build it with `trunk build` (see README.md)");
}
