//! Stop signals. The first SIGINT, SIGTERM or SIGHUP cancels what runs (the turn's
//! cancellation: shell commands are killed with their process groups) and lets the
//! command wind down: results for the cancelled calls, mounted MCP servers stopped,
//! temporary files removed. A second one exits at once, after killing every process
//! group and tagged process the tools started and removing their temporary files.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicI32, Ordering};
use tokio::signal::unix::{SignalKind, signal};
use toolwright::CancellationToken;

static TOKEN: LazyLock<CancellationToken> = LazyLock::new(CancellationToken::new);
/// The first stop signal's number, 0 before one.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// Cancelled by the first stop signal.
pub fn token() -> CancellationToken {
    TOKEN.clone()
}

/// The exit status for a stop by signal (128 + its number), if one came.
pub fn exit_status() -> Option<u8> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        signo => u8::try_from(128 + signo).ok(),
    }
}

/// Starts listening; call inside the runtime (its signal driver). Before this, a
/// signal has its default effect.
pub fn watch() -> Result<(), String> {
    let listen = |kind: SignalKind, name: &'static str| {
        signal(kind).map(|stream| (stream, name)).map_err(|e| format!("listening for {name}: {e}"))
    };
    let (mut int, _) = listen(SignalKind::interrupt(), "SIGINT")?;
    let (mut term, _) = listen(SignalKind::terminate(), "SIGTERM")?;
    let (mut hup, _) = listen(SignalKind::hangup(), "SIGHUP")?;
    tokio::spawn(async move {
        loop {
            let (signo, name) = tokio::select! {
                _ = int.recv() => (2, "SIGINT"),
                _ = term.recv() => (15, "SIGTERM"),
                _ = hup.recv() => (1, "SIGHUP"),
            };
            if RECEIVED.compare_exchange(0, signo, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
                TOKEN.cancel();
                say!("toolwright: {name}: stopping (send it again to exit at once)");
            } else {
                toolwright::leftovers::clean_up();
                crate::otel::flush();
                std::process::exit(128 + signo);
            }
        }
    });
    Ok(())
}
