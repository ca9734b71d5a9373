//! Limits of the HTTP endpoint beyond one message's size: open sessions, calls in
//! flight per session and in all, and how long a session may idle or take to
//! initialize, open connections and how long a request may take to arrive. Each refusal is the documented status with a JSON-RPC error, never a
//! hang: `503` (sessions) and `429` (calls) with `Retry-After`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How much an HTTP server takes on at once.
///
/// ```
/// use std::time::Duration;
/// use toolwright_mcp::HttpLimits;
///
/// let limits = HttpLimits::default().max_sessions(8).idle_timeout(Duration::from_secs(60));
/// assert_eq!(limits.sessions(), 8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    sessions: usize,
    calls: usize,
    calls_per_session: usize,
    idle: Duration,
    init: Duration,
    connections: usize,
    read: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            sessions: 64,
            calls: 64,
            calls_per_session: 16,
            idle: Duration::from_secs(300),
            init: Duration::from_secs(30),
            connections: 256,
            read: Duration::from_secs(30),
        }
    }
}

impl HttpLimits {
    /// At most `n` sessions open at once (a new one past it gets `503`).
    pub fn max_sessions(mut self, n: usize) -> Self {
        self.sessions = n.max(1);
        self
    }

    /// At most `n` calls in flight in all (past it: `429`).
    pub fn max_calls(mut self, n: usize) -> Self {
        self.calls = n.max(1);
        self
    }

    /// At most `n` calls in flight in one session (past it: `429`).
    pub fn max_calls_per_session(mut self, n: usize) -> Self {
        self.calls_per_session = n.max(1);
        self
    }

    /// A session with no request for this long is closed (its id then gets `404`).
    pub fn idle_timeout(mut self, idle: Duration) -> Self {
        self.idle = idle;
        self
    }

    /// A session must finish initializing within this.
    pub fn init_timeout(mut self, init: Duration) -> Self {
        self.init = init;
        self
    }

    /// At most `n` connections open at once; one past it gets `503` and is closed.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.connections = n.max(1);
        self
    }

    /// A request's headers must arrive within this (else the connection is
    /// closed), and its body within this after them (else `408`): a slow client
    /// holds a connection for no longer.
    pub fn read_timeout(mut self, read: Duration) -> Self {
        self.read = read.max(Duration::from_millis(100));
        self
    }

    /// The most open connections.
    pub fn connections(&self) -> usize {
        self.connections
    }

    /// The time a request's headers, then its body, may take to arrive.
    pub fn read(&self) -> Duration {
        self.read
    }

    /// The most open sessions.
    pub fn sessions(&self) -> usize {
        self.sessions
    }

    /// The most requests in flight in all.
    pub fn calls(&self) -> usize {
        self.calls
    }

    /// The most requests in flight in one session.
    pub fn calls_per_session(&self) -> usize {
        self.calls_per_session
    }

    /// The idle timeout.
    pub fn idle(&self) -> Duration {
        self.idle
    }

    /// The initialize timeout.
    pub fn init(&self) -> Duration {
        self.init
    }
}

/// The requests in flight, in all and per session.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    total: AtomicUsize,
    per_session: Mutex<HashMap<String, usize>>,
}

/// One call counted in flight until it is dropped, when the call has its result
/// (whether or not its client still listens).
#[derive(Debug)]
pub(crate) struct Ticket {
    flight: Arc<InFlight>,
    session: Option<String>,
}

impl InFlight {
    /// Which limit a new call of `session` would be over, if any (the HTTP layer
    /// answers 429 before reading on; the call itself takes the ticket).
    pub(crate) fn full(&self, session: Option<&str>, limits: &HttpLimits) -> Option<String> {
        if self.total.load(Ordering::Acquire) >= limits.calls {
            return Some(format!("too many calls in flight ({} in all); try again shortly", limits.calls));
        }
        let sessions = self.per_session.lock().unwrap_or_else(PoisonError::into_inner);
        let held = session.and_then(|s| sessions.get(s)).copied().unwrap_or(0);
        (held >= limits.calls_per_session).then(|| {
            format!("too many calls in flight in this session ({}); try again shortly", limits.calls_per_session)
        })
    }

    /// A ticket for a call of `session`, or which limit it is over.
    pub(crate) fn enter(self: &Arc<Self>, session: Option<&str>, limits: &HttpLimits) -> Result<Ticket, String> {
        if self.total.fetch_add(1, Ordering::AcqRel) >= limits.calls {
            self.total.fetch_sub(1, Ordering::AcqRel);
            return Err(format!("too many calls in flight ({} in all); try again shortly", limits.calls));
        }
        if let Some(session) = session {
            let mut sessions = self.per_session.lock().unwrap_or_else(PoisonError::into_inner);
            let count = sessions.entry(session.to_owned()).or_default();
            if *count >= limits.calls_per_session {
                drop(sessions);
                self.total.fetch_sub(1, Ordering::AcqRel);
                return Err(format!(
                    "too many calls in flight in this session ({}); try again shortly",
                    limits.calls_per_session
                ));
            }
            *count += 1;
        }
        Ok(Ticket { flight: Arc::clone(self), session: session.map(str::to_owned) })
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.flight.total.fetch_sub(1, Ordering::AcqRel);
        if let Some(session) = &self.session {
            let mut sessions = self.flight.per_session.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(count) = sessions.get_mut(session) {
                *count -= 1;
                if *count == 0 {
                    sessions.remove(session);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{HttpLimits, InFlight};
    use std::sync::Arc;

    #[test]
    fn tickets_count_in_all_and_per_session_and_are_given_back() {
        let limits = HttpLimits::default().max_calls(3).max_calls_per_session(2);
        let flight = Arc::new(InFlight::default());
        let a1 = flight.enter(Some("a"), &limits).unwrap();
        let _a2 = flight.enter(Some("a"), &limits).unwrap();
        assert!(flight.enter(Some("a"), &limits).unwrap_err().contains("in this session (2)"));
        assert!(flight.full(Some("a"), &limits).is_some() && flight.full(Some("b"), &limits).is_none());
        let _b1 = flight.enter(Some("b"), &limits).unwrap();
        assert!(flight.enter(None, &limits).unwrap_err().contains("(3 in all)"));
        drop(a1);
        assert!(flight.enter(Some("a"), &limits).is_ok(), "a ticket given back frees its place");
    }
}
