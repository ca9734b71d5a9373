//! How often and how long to wait before asking a model again: exponential
//! backoff with jitter (`backon`), or what the API asked for.

use super::ModelError;
use std::time::{Duration, SystemTime};

/// Retries of a request that failed in a way [`ModelError::is_retryable`] allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Attempts after the first.
    pub max_retries: usize,
    /// The first wait; each later one doubles, up to `max_delay`.
    pub min_delay: Duration,
    /// The longest computed wait.
    pub max_delay: Duration,
    /// The longest wait an API may ask for (`retry-after`); asked for more, the
    /// request fails at once with the API's answer.
    pub max_retry_after: Duration,
    /// Random jitter up to the wait itself, so clients do not retry in step.
    pub jitter: bool,
}

impl Default for RetryPolicy {
    /// 4 retries from 500 ms, doubling up to 30 s, with jitter; `retry-after` up to 60 s.
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            min_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(60),
            jitter: true,
        }
    }
}

impl RetryPolicy {
    /// No retries: the first failure is the answer.
    pub fn none() -> Self {
        RetryPolicy { max_retries: 0, ..RetryPolicy::default() }
    }

    /// With `n` retries after the first attempt.
    pub fn max_retries(mut self, n: usize) -> Self {
        self.max_retries = n;
        self
    }

    /// With other computed waits.
    pub fn delays(mut self, min: Duration, max: Duration) -> Self {
        self.min_delay = min;
        self.max_delay = max.max(min);
        self
    }

    /// Without jitter (waits exactly as computed).
    pub fn without_jitter(mut self) -> Self {
        self.jitter = false;
        self
    }

    pub(crate) fn backoff(&self) -> backon::ExponentialBuilder {
        let builder = backon::ExponentialBuilder::new()
            .with_min_delay(self.min_delay)
            .with_max_delay(self.max_delay)
            .with_max_times(self.max_retries);
        if self.jitter { builder.with_jitter() } else { builder }
    }

    /// The wait before the next attempt: the API's `retry-after` when it gave one
    /// (and it is within `max_retry_after`), else the computed one; `None` to stop.
    pub(crate) fn wait(&self, error: &ModelError, computed: Option<Duration>) -> Option<Duration> {
        let computed = computed?;
        match error.retry_after() {
            Some(asked) if asked > self.max_retry_after => None,
            Some(asked) => Some(asked),
            None => Some(computed),
        }
    }
}

/// The wait an answer asks for: `retry-after-ms` (OpenAI), else `retry-after` in
/// seconds or as an HTTP date.
pub(crate) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()).filter(|v| v.is_finite() && *v >= 0.0)
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = text("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(SystemTime::now()).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn retry_after_reads_milliseconds_seconds_and_dates() {
        assert_eq!(retry_after(&headers(&[("retry-after-ms", "250")])), Some(Duration::from_millis(250)));
        assert_eq!(retry_after(&headers(&[("retry-after", "2")])), Some(Duration::from_secs(2)));
        assert_eq!(retry_after(&headers(&[("retry-after", "0.5")])), Some(Duration::from_millis(500)));
        let soon = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
        let wait = retry_after(&headers(&[("retry-after", &soon)])).unwrap();
        assert!(wait > Duration::from_secs(27) && wait <= Duration::from_secs(30), "{wait:?}");
        let past = httpdate::fmt_http_date(SystemTime::now() - Duration::from_secs(30));
        assert_eq!(retry_after(&headers(&[("retry-after", &past)])), Some(Duration::ZERO));
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")])), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "-1")])), None);
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }

    #[test]
    fn an_api_asking_for_too_long_a_wait_ends_the_retries() {
        let policy = RetryPolicy::default();
        let status = |after: u64| ModelError::Status {
            url: "u".into(),
            status: 429,
            message: "slow down".into(),
            retry_after: Some(Duration::from_secs(after)),
        };
        assert_eq!(policy.wait(&status(1), Some(Duration::from_millis(10))), Some(Duration::from_secs(1)));
        assert_eq!(policy.wait(&status(61), Some(Duration::from_millis(10))), None);
        // Out of attempts: no wait, whatever the API asked.
        assert_eq!(policy.wait(&status(1), None), None);
    }
}
