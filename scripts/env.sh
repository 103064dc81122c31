# shellcheck shell=bash
# Source this file (`. scripts/env.sh`) to get the project's pinned tools on PATH.
# It is sourced by scripts/setup, scripts/serve and scripts/test; it is safe to source more than once.
# No `set -e` here: this file must not change the options of an interactive shell that sources it.

SERVECOST_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SERVECOST_REPO
export SERVECOST_TOOLS="$SERVECOST_REPO/.tools"

_servecost_path_prepend() {
  case ":$PATH:" in
    *":$1:"*) ;;
    *) PATH="$1:$PATH" ;;
  esac
}
# cargo/rustup first if they live in the usual place but are not on PATH (e.g. a bare CI shell).
if [ -d "$HOME/.cargo/bin" ]; then _servecost_path_prepend "$HOME/.cargo/bin"; fi
_servecost_path_prepend "$SERVECOST_REPO/tests/e2e/node_modules/.bin"
# Last prepend wins: .tools/bin (trunk, wasm-bindgen, wasm-bindgen-test-runner, wasm-opt) goes first,
# ahead of e.g. Debian's /usr/bin/wasm-opt (binaryen 108, which cannot parse rustc 1.95 output).
_servecost_path_prepend "$SERVECOST_TOOLS/bin"
unset -f _servecost_path_prepend
export PATH

# trunk would otherwise ping crates.io for a newer version on every run (G7).
export TRUNK_SKIP_VERSION_CHECK=true
# Runner for `cargo test --target wasm32-unknown-unknown` (same as .cargo/config.toml; the env var wins).
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
# The wasm test runner and the e2e tests use the system Chromium + ChromeDriver (apt), never a download.
if [ -x /usr/bin/chromedriver ] && [ -z "${CHROMEDRIVER:-}" ]; then
  export CHROMEDRIVER=/usr/bin/chromedriver
fi
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
