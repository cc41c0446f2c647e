//! What stands between a client and the pages: the client's address, the
//! per-client rate limit, the deadline of a page, and the headers every
//! answer carries (Content-Security-Policy and friends).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::page::PageError;
use super::Site;

/// The peer of a connection, put on each of its requests.
#[derive(Clone, Copy, Debug)]
pub(super) struct Peer(pub SocketAddr);

/// The longest a page may take to make.
pub(super) const PAGE_DEADLINE: Duration = Duration::from_secs(10);

/// The longest a form may take: its transaction may wait for the daemon's
/// (the write connection's busy timeout is 30 s); cut off earlier, the
/// page would say 503 while the move may still be played.
pub(super) const FORM_DEADLINE: Duration = Duration::from_secs(45);

/// Client addresses the limiter remembers at most; beyond it the buckets
/// that are full again (clients gone quiet) are forgotten first.
const REMEMBERED: usize = 20_000;

/// Ruling: the policy allows nothing from another site and no inline
/// script or style: the pages' one script (`/step.js`, optional) and
/// style sheet are the site's own files; the board and chart pictures are
/// inline SVG drawn with attributes, not styles.
pub(super) const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

/// A token bucket per client address: `burst` requests at once, then
/// `per_minute` a minute.
pub(super) struct Limiter {
    per_second: f64,
    burst: f64,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Limiter {
    pub(super) fn new(per_minute: u32, burst: u32) -> Limiter {
        Limiter {
            per_second: f64::from(per_minute.max(1)) / 60.0,
            burst: f64::from(burst.max(1)),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `client` may have one more request at `now`.
    pub(super) fn admit(&self, client: IpAddr, now: Instant) -> bool {
        let Ok(mut buckets) = self.buckets.lock() else {
            return true;
        };
        if buckets.len() >= REMEMBERED && !buckets.contains_key(&client) {
            let (rate, burst) = (self.per_second, self.burst);
            buckets.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * rate < burst
            });
            if buckets.len() >= REMEMBERED {
                // Every one of them is busy: the newest stranger waits.
                return false;
            }
        }
        let (tokens, at) = buckets.entry(client).or_insert((self.burst, now));
        *tokens =
            (*tokens + now.duration_since(*at).as_secs_f64() * self.per_second).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The address a request is counted against: its peer's; behind a proxy
/// on this host (`[web] behind_proxy`), a loopback peer's request counts
/// against the last address in `X-Forwarded-For` (the one the proxy
/// appended: the earlier ones are the client's to write). An IPv6 client
/// is counted by its /64, which one subscriber usually holds whole.
pub(super) fn client(request: &Request, behind_proxy: bool) -> IpAddr {
    let peer = request
        .extensions()
        .get::<Peer>()
        .map_or(IpAddr::from([0, 0, 0, 0]), |p| p.0.ip());
    let ip = if behind_proxy && peer.is_loopback() {
        request
            .headers()
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|a| a.trim().parse::<IpAddr>().ok())
            .next_back()
            .unwrap_or(peer)
    } else {
        peer
    };
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
        v4 => v4,
    }
}

/// The rate limit and the page's deadline.
pub(super) async fn limit(State(site): State<Arc<Site>>, request: Request, next: Next) -> Response {
    let who = client(&request, site.behind_proxy);
    if !site.limiter.admit(who, Instant::now()) {
        return PageError::TooMany.into_response();
    }
    let deadline = if request.method() == axum::http::Method::POST {
        FORM_DEADLINE
    } else {
        PAGE_DEADLINE
    };
    match tokio::time::timeout(deadline, next.run(request)).await {
        Ok(response) => response,
        Err(_) => PageError::TooSlow.into_response(),
    }
}

/// The headers every answer carries; an error answered without a page of
/// ours (by the router or a layer, in their words) gets one.
pub(super) async fn headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let status = response.status();
    let ours = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if (status.is_client_error() || status.is_server_error()) && !ours {
        response = super::page::bare_error(status);
    }
    let h = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ] {
        h.insert(name, HeaderValue::from_static(value));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_gets_its_burst_then_its_rate() {
        let limiter = Limiter::new(60, 3);
        let (a, b) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        let t = Instant::now();
        assert!((0..3).all(|_| limiter.admit(a, t)));
        assert!(!limiter.admit(a, t));
        // Another client is not held up by the first.
        assert!(limiter.admit(b, t));
        // One a second comes back.
        assert!(limiter.admit(a, t + Duration::from_millis(1001)));
        assert!(!limiter.admit(a, t + Duration::from_millis(1002)));
    }
}
