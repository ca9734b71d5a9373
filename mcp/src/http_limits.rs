//! Limits of the HTTP endpoint beyond one message's size: open sessions, calls in
//! flight per session and in all, and how long a session may idle or take to
//! initialize, open connections and how long a request may take to arrive; and, for
//! an authenticated caller (a token's subject or a static token's name), its own
//! share of the sessions and the calls in flight, so one caller cannot lock the
//! others out. Each refusal is the documented status with a JSON-RPC error, never a
//! hang: `503` (sessions in all), `429` (calls, and a caller's sessions) with
//! `Retry-After`.

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
    sessions_per_caller: usize,
    calls_per_caller: usize,
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
            sessions_per_caller: 8,
            calls_per_caller: 16,
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

    /// At most `n` sessions open at once for one authenticated caller (past it:
    /// `429`); the default, 8, is well under the 64 in all.
    pub fn max_sessions_per_caller(mut self, n: usize) -> Self {
        self.sessions_per_caller = n.max(1);
        self
    }

    /// At most `n` calls in flight for one authenticated caller, over all its
    /// sessions (past it: `429`); the default, 16, is well under the 64 in all.
    pub fn max_calls_per_caller(mut self, n: usize) -> Self {
        self.calls_per_caller = n.max(1);
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

    /// The most open sessions of one caller.
    pub fn sessions_per_caller(&self) -> usize {
        self.sessions_per_caller
    }

    /// The most requests in flight of one caller.
    pub fn calls_per_caller(&self) -> usize {
        self.calls_per_caller
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

/// The requests in flight, in all, per session and per caller.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    total: AtomicUsize,
    per_session: Mutex<HashMap<String, usize>>,
    per_caller: Mutex<HashMap<String, usize>>,
}

/// One call counted in flight until it is dropped, when the call has its result
/// (whether or not its client still listens).
#[derive(Debug)]
pub(crate) struct Ticket {
    flight: Arc<InFlight>,
    session: Option<String>,
    caller: Option<String>,
}

/// Who a call is counted for: its session and its authenticated caller.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CountedFor<'a> {
    pub(crate) session: Option<&'a str>,
    pub(crate) caller: Option<&'a str>,
}

fn held(map: &Mutex<HashMap<String, usize>>, key: Option<&str>) -> usize {
    let map = map.lock().unwrap_or_else(PoisonError::into_inner);
    key.and_then(|k| map.get(k)).copied().unwrap_or(0)
}

fn too_many_in_all(limits: &HttpLimits) -> String {
    format!("too many calls in flight ({} in all); try again shortly", limits.calls)
}

fn too_many_in_session(limits: &HttpLimits) -> String {
    format!("too many calls in flight in this session ({}); try again shortly", limits.calls_per_session)
}

fn too_many_for_caller(limits: &HttpLimits) -> String {
    format!(
        "too many calls in flight for this caller ({}, the per-caller cap: serve --max-calls-per-caller); try again \
         shortly",
        limits.calls_per_caller
    )
}

impl InFlight {
    /// Which limit a new call would be over, if any (the HTTP layer answers 429
    /// before reading on; the call itself takes the ticket).
    pub(crate) fn full(&self, who: CountedFor<'_>, limits: &HttpLimits) -> Option<String> {
        if self.total.load(Ordering::Acquire) >= limits.calls {
            return Some(too_many_in_all(limits));
        }
        if held(&self.per_caller, who.caller) >= limits.calls_per_caller {
            return Some(too_many_for_caller(limits));
        }
        (held(&self.per_session, who.session) >= limits.calls_per_session).then(|| too_many_in_session(limits))
    }

    /// A ticket for a call, or which limit it is over.
    pub(crate) fn enter(self: &Arc<Self>, who: CountedFor<'_>, limits: &HttpLimits) -> Result<Ticket, String> {
        if self.total.fetch_add(1, Ordering::AcqRel) >= limits.calls {
            self.total.fetch_sub(1, Ordering::AcqRel);
            return Err(too_many_in_all(limits));
        }
        // The ticket gives back what it took, whichever step refuses.
        let mut ticket = Ticket { flight: Arc::clone(self), session: None, caller: None };
        if let Some(caller) = who.caller {
            take(&self.per_caller, caller, limits.calls_per_caller).map_err(|()| too_many_for_caller(limits))?;
            ticket.caller = Some(caller.to_owned());
        }
        if let Some(session) = who.session {
            take(&self.per_session, session, limits.calls_per_session).map_err(|()| too_many_in_session(limits))?;
            ticket.session = Some(session.to_owned());
        }
        Ok(ticket)
    }
}

/// Counts one more for `key` unless it holds `most` already.
fn take(map: &Mutex<HashMap<String, usize>>, key: &str, most: usize) -> Result<(), ()> {
    let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
    let count = map.entry(key.to_owned()).or_default();
    if *count >= most {
        if *count == 0 {
            map.remove(key);
        }
        return Err(());
    }
    *count += 1;
    Ok(())
}

/// Counts one less for `key`.
fn give_back(map: &Mutex<HashMap<String, usize>>, key: &str) {
    let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(count) = map.get_mut(key) {
        *count = count.saturating_sub(1);
        if *count == 0 {
            map.remove(key);
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.flight.total.fetch_sub(1, Ordering::AcqRel);
        if let Some(session) = &self.session {
            give_back(&self.flight.per_session, session);
        }
        if let Some(caller) = &self.caller {
            give_back(&self.flight.per_caller, caller);
        }
    }
}

/// Which authenticated caller opened each session, to hold each caller to its share;
/// an `initialize` on its way counts too, so a flood of them at once cannot pass the
/// check together.
#[derive(Debug, Default)]
pub(crate) struct SessionOwners {
    owners: Mutex<HashMap<String, String>>,
    opening: Mutex<HashMap<String, usize>>,
}

/// A session being opened for a caller, counted in its share until it is recorded
/// or dropped.
#[derive(Debug)]
pub(crate) struct Opening {
    owners: Arc<SessionOwners>,
    caller: String,
}

impl SessionOwners {
    /// A place among `caller`'s sessions for one being opened, unless it has `most`
    /// open or opening already; those `is_open` says are closed (ended, idle too
    /// long) are forgotten first.
    pub(crate) fn open(self: &Arc<Self>, caller: &str, most: usize, is_open: impl Fn(&str) -> bool) -> Option<Opening> {
        let open = {
            let mut owners = self.owners.lock().unwrap_or_else(PoisonError::into_inner);
            owners.retain(|session, _| is_open(session));
            owners.values().filter(|owner| *owner == caller).count()
        };
        let mut opening = self.opening.lock().unwrap_or_else(PoisonError::into_inner);
        let pending = opening.entry(caller.to_owned()).or_default();
        if open + *pending >= most {
            if *pending == 0 {
                opening.remove(caller);
            }
            return None;
        }
        *pending += 1;
        Some(Opening { owners: Arc::clone(self), caller: caller.to_owned() })
    }
}

impl Opening {
    /// The session was opened as `session`.
    pub(crate) fn opened(self, session: &str) {
        let owners = &self.owners.owners;
        owners.lock().unwrap_or_else(PoisonError::into_inner).insert(session.to_owned(), self.caller.clone());
    }
}

impl Drop for Opening {
    fn drop(&mut self) {
        give_back(&self.owners.opening, &self.caller);
    }
}

/// The refusal of a session past a caller's share.
pub(crate) fn too_many_sessions_for_caller(limits: &HttpLimits) -> String {
    format!(
        "too many open sessions for this caller ({}, the per-caller cap: serve --max-sessions-per-caller); close \
         one (DELETE) or try again later",
        limits.sessions_per_caller
    )
}

#[cfg(test)]
mod tests {
    use super::{CountedFor, HttpLimits, InFlight};
    use std::sync::Arc;

    fn session(s: &str) -> CountedFor<'_> {
        CountedFor { session: Some(s), caller: None }
    }

    #[test]
    fn tickets_count_in_all_and_per_session_and_are_given_back() {
        let limits = HttpLimits::default().max_calls(3).max_calls_per_session(2);
        let flight = Arc::new(InFlight::default());
        let a1 = flight.enter(session("a"), &limits).unwrap();
        let _a2 = flight.enter(session("a"), &limits).unwrap();
        assert!(flight.enter(session("a"), &limits).unwrap_err().contains("in this session (2)"));
        assert!(flight.full(session("a"), &limits).is_some() && flight.full(session("b"), &limits).is_none());
        let _b1 = flight.enter(session("b"), &limits).unwrap();
        assert!(flight.enter(CountedFor::default(), &limits).unwrap_err().contains("(3 in all)"));
        drop(a1);
        assert!(flight.enter(session("a"), &limits).is_ok(), "a ticket given back frees its place");
    }

    #[test]
    fn a_caller_has_its_own_share_over_all_its_sessions() {
        let limits = HttpLimits::default().max_calls_per_caller(2);
        let flight = Arc::new(InFlight::default());
        let alice = |s| CountedFor { session: Some(s), caller: Some("alice") };
        let first = flight.enter(alice("1"), &limits).unwrap();
        let _second = flight.enter(alice("2"), &limits).unwrap();
        assert!(flight.enter(alice("3"), &limits).unwrap_err().contains("for this caller (2"));
        assert!(flight.full(alice("4"), &limits).is_some());
        let bob = CountedFor { session: Some("5"), caller: Some("bob") };
        assert!(flight.full(bob, &limits).is_none() && flight.enter(bob, &limits).is_ok());
        drop(first);
        assert!(flight.enter(alice("3"), &limits).is_ok());
    }
}
