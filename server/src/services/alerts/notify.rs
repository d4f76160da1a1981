// SPDX-License-Identifier: GPL-3.0-or-later
//! Notifications: every alert event becomes one outbox row per webhook and one per mail (the
//! notifier), and the outbox is delivered in order per target with retries (the deliverer).
//! A webhook is a JSON POST signed with HMAC-SHA256; a mail goes to an SMTP relay.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use hmac::{Hmac, Mac};
use lettre::message::{header::ContentType, Mailbox, Message};
use lettre::{Address, AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use sha2::Sha256;

use super::mail;
use crate::services::Services;
use crate::store::{Delivery, NewNotice, PendingEvent};

/// Where notifications go, from the configuration.
pub struct Channels {
    pub webhooks: Vec<String>,
    pub secret: Option<String>,
    pub mail: Option<MailChannel>,
    /// The first retry's delay, doubled after every failure up to `retry_max`.
    pub retry_first: Duration,
    pub retry_max: Duration,
    /// A notification still undelivered this long after it was made is given up on.
    pub give_up: Duration,
    /// `--allow-internal-webhooks`: webhooks may reach this machine and its networks.
    pub allow_internal: bool,
    http: reqwest::Client,
}

pub struct MailChannel {
    pub from: Mailbox,
    pub to: Vec<Mailbox>,
    transport: AsyncSmtpTransport<Tokio1Executor>,
}

impl Channels {
    /// Checks the notification settings: a wrong URL or address stops the server at start,
    /// not the first alert.
    pub fn from_config(c: &crate::Config) -> anyhow::Result<Channels> {
        use anyhow::{bail, Context};
        for w in &c.webhooks {
            let url = reqwest::Url::parse(w).with_context(|| format!("--webhook {w:?}"))?;
            if !matches!(url.scheme(), "http" | "https") {
                bail!("--webhook {w:?}: must be an http:// or https:// URL");
            }
            if !c.allow_internal_webhooks {
                if let Some((host, why)) = internal_host(&url) {
                    bail!(
                        "--webhook {w:?}: {host} is {why}, inside this machine or its network; \
                         pass --allow-internal-webhooks (PERFLINE_ALLOW_INTERNAL_WEBHOOKS=true) \
                         to send alerts there"
                    );
                }
            }
        }
        let mail = match &c.smtp {
            None => {
                if !c.mail_to.is_empty() {
                    bail!("--mail-to needs --smtp smtp://host:port");
                }
                None
            }
            Some(url) => {
                let mut builder = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                    .with_context(|| {
                        format!("--smtp {url:?}: expected smtp://host:port or smtps://host:port")
                    })?
                    .timeout(Some(Duration::from_secs(30)));
                if let (Ok(user), Ok(password)) = (
                    std::env::var("PERFLINE_SMTP_USER"),
                    std::env::var("PERFLINE_SMTP_PASSWORD"),
                ) {
                    builder = builder.credentials(
                        lettre::transport::smtp::authentication::Credentials::new(user, password),
                    );
                }
                let from: Mailbox = c
                    .mail_from
                    .as_deref()
                    .context("--smtp needs --mail-from")?
                    .parse()
                    .context("--mail-from")?;
                if c.mail_to.is_empty() {
                    bail!("--smtp needs at least one --mail-to");
                }
                let to = c
                    .mail_to
                    .iter()
                    .map(|t| {
                        t.parse::<Mailbox>()
                            .with_context(|| format!("--mail-to {t:?}"))
                    })
                    .collect::<anyhow::Result<Vec<_>>>()?;
                Some(MailChannel {
                    from,
                    to,
                    transport: builder.build(),
                })
            }
        };
        Ok(Channels {
            webhooks: c.webhooks.clone(),
            secret: c.webhook_secret.clone(),
            mail,
            retry_first: Duration::from_millis(c.notify_retry_first_ms.max(1)),
            retry_max: Duration::from_secs(c.notify_retry_max.max(1)),
            give_up: Duration::from_secs(c.notify_give_up.max(1) * 3600),
            allow_internal: c.allow_internal_webhooks,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(15))
                // A host name may resolve inside the network later (DNS rebinding): the
                // resolver drops such addresses at every connection.
                .dns_resolver(Arc::new(GuardedResolver {
                    allow_internal: c.allow_internal_webhooks,
                }))
                .redirect(reqwest::redirect::Policy::none())
                // Not through `HTTP(S)_PROXY`: a proxy would resolve the name itself, past
                // the resolver's check.
                .no_proxy()
                .user_agent(concat!("perfline/", env!("CARGO_PKG_VERSION")))
                .build()?,
        })
    }

    fn any(&self) -> bool {
        !self.webhooks.is_empty() || self.mail.is_some()
    }

    /// The delay before attempt `attempts + 1`.
    pub fn backoff(&self, attempts: i64) -> Duration {
        let shift = attempts.clamp(0, 20) as u32;
        self.retry_first
            .saturating_mul(1 << shift)
            .min(self.retry_max)
    }
}

/// Why a webhook must not go to `ip` without `--allow-internal-webhooks`: what kind of
/// address inside this machine or its networks it is; `None` for any other.
pub fn internal_address(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => internal_v4(v4),
        IpAddr::V6(v6) => {
            // An IPv4 address in IPv6 clothes reaches the same place: mapped (::ffff:a.b.c.d),
            // or through the NAT64 well-known prefix (64:ff9b::a.b.c.d, RFC 6052).
            if let Some(v4) = v6.to_ipv4_mapped() {
                return internal_v4(v4);
            }
            let seg = v6.segments();
            if seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                let [a, b] = seg[6].to_be_bytes();
                let [c, d] = seg[7].to_be_bytes();
                return internal_v4(Ipv4Addr::new(a, b, c, d));
            }
            if v6.is_unspecified() {
                Some("an unspecified address")
            } else if v6.is_loopback() {
                Some("a loopback address")
            } else if v6.is_unicast_link_local() {
                Some("a link-local address")
            } else if v6.is_unique_local() {
                Some("a unique-local address")
            } else if seg[0] & 0xffc0 == 0xfec0 {
                Some("a site-local address")
            } else if v6.is_multicast() {
                Some("a multicast address")
            } else {
                None
            }
        }
    }
}

fn internal_v4(v4: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = v4.octets();
    if a == 0 {
        // 0.0.0.0/8, "this network": 0.0.0.0 itself connects to this machine.
        Some("an unspecified address")
    } else if v4.is_loopback() {
        Some("a loopback address")
    } else if v4.is_private() {
        Some("a private address")
    } else if v4.is_link_local() {
        Some("a link-local address")
    } else if a == 100 && b & 0xc0 == 64 {
        // 100.64.0.0/10 (RFC 6598); std's `is_shared` is not stable.
        Some("a shared (CGNAT) address")
    } else if v4.is_multicast() {
        Some("a multicast address")
    } else if v4.is_broadcast() {
        Some("a broadcast address")
    } else if a == 198 && b & 0xfe == 18 {
        // 198.18.0.0/15 (RFC 2544): benchmark networks, common in performance labs.
        Some("a benchmarking-network address")
    } else if a == 192 && b == 0 && v4.octets()[2] == 0 {
        // 192.0.0.0/24 (RFC 6890): protocol assignments.
        Some("a protocol-assignment address")
    } else if a >= 240 {
        // 240.0.0.0/4: reserved.
        Some("a reserved address")
    } else {
        None
    }
}

/// The host of a webhook URL and why it is internal, if it is: an internal IP literal, or a
/// `localhost` name. Other names are checked when they are resolved (`GuardedResolver`).
fn internal_host(url: &reqwest::Url) -> Option<(String, &'static str)> {
    let host = url.host_str()?;
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return internal_address(ip).map(|why| (host.to_owned(), why));
    }
    let name = host.trim_end_matches('.').to_ascii_lowercase();
    (name == "localhost" || name.ends_with(".localhost"))
        .then(|| (host.to_owned(), "a loopback name"))
}

/// The webhook client's resolver: the system's, less the internal addresses unless
/// `--allow-internal-webhooks`.
struct GuardedResolver {
    allow_internal: bool,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow_internal = self.allow_internal;
        Box::pin(async move {
            let host = name.as_str();
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host, 0)).await?.collect();
            let kept = keep_allowed(host, found, allow_internal)?;
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The resolved addresses of `host` that a webhook may connect to; an error naming them when
/// none is left.
fn keep_allowed(
    host: &str,
    found: Vec<SocketAddr>,
    allow_internal: bool,
) -> Result<Vec<SocketAddr>, String> {
    if allow_internal {
        return Ok(found);
    }
    let (kept, dropped): (Vec<_>, Vec<_>) = found
        .into_iter()
        .partition(|a| internal_address(a.ip()).is_none());
    if kept.is_empty() && !dropped.is_empty() {
        let ips = dropped
            .iter()
            .map(|a| a.ip().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        return Err(format!(
            "{host} resolves only to internal addresses ({ips}); \
             --allow-internal-webhooks allows them"
        ));
    }
    Ok(kept)
}

/// An error and its causes, `: `-separated (reqwest's own message omits the cause).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// `sha256=` and the hex HMAC-SHA256 of `body` under `secret`: the `X-Perfline-Signature`.
pub fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Renders every event not yet notified into the outbox, until `stop`.
pub async fn run_notifier(state: Services, stop: tokio::sync::watch::Receiver<bool>) {
    let st = &state;
    crate::services::alerts::run_leased(
        st,
        "notifier",
        &st.wakers.events,
        None,
        stop,
        || async move {
            use crate::services::background::{pass_failed, passed};
            match notify_once(st).await {
                Ok(0) => {
                    passed(st, "notifier");
                    crate::services::alerts::Next::After(Duration::from_secs(5))
                }
                Ok(_) => {
                    passed(st, "notifier");
                    st.wakers.outbox.notify_one();
                    crate::services::alerts::Next::Now
                }
                Err(e) => {
                    tracing::warn!(error = %e, "rendering notifications failed; retrying");
                    pass_failed(st, "notifier", &e.to_string());
                    crate::services::alerts::Next::After(Duration::from_secs(1))
                }
            }
        },
    )
    .await;
}

/// One batch of events: how many were handled (or set aside). Each on its own
/// (`background::isolate`): one whose rendering panics or fails for good is set aside, and
/// the others go out.
pub async fn notify_once(state: &Services) -> Result<usize, crate::services::ServiceError> {
    use crate::services::background::{isolate, set_aside, Item};
    let events = state.store.unnotified_events(64).await?;
    for e in &events {
        let what = format!(
            "the {} event {} of alert summary {}",
            e.event.kind, e.event.id, e.summary_id
        );
        let work = async {
            crate::services::background::fault(state, &what);
            let notices = render(state, e).await?;
            state.store.enqueue_notices(e.event.id, &notices).await?;
            Ok(())
        };
        if let Err(caught) = isolate(work).await {
            let item = Item {
                task: "notifier",
                kind: "event",
                id: e.event.id,
                series: None,
                what,
            };
            set_aside(state, &item, caught).await?;
        }
    }
    Ok(events.len())
}

/// The outbox rows of one event: one per webhook, one mail.
async fn render(
    state: &Services,
    e: &PendingEvent,
) -> Result<Vec<NewNotice>, crate::services::ServiceError> {
    let channels = &state.channels;
    if !channels.any() {
        return Ok(Vec::new());
    }
    let Some(summary) = state.store.alert_summary(e.summary_id).await? else {
        return Ok(Vec::new());
    };
    // The first announcement: `new`, or `confirmed` for a summary that awaited its reruns.
    let first = matches!(e.event.kind.as_str(), "new" | "confirmed");
    // Nothing of a summary that was never announced (awaiting confirmation, or dismissed as
    // noise) goes out.
    let announced = summary
        .events
        .iter()
        .any(|x| x.id < e.event.id && matches!(x.kind.as_str(), "new" | "confirmed"));
    if !first && !announced {
        return Ok(Vec::new());
    }
    let origin = state.notice_origin();
    let links = mail::Links::new(&origin, &summary);
    let event_name = match e.event.kind.as_str() {
        "new" | "confirmed" => "alert.new",
        "bisected" => "alert.bisected",
        _ => "alert.status",
    };
    let mut out = Vec::new();
    if !channels.webhooks.is_empty() {
        let mut plain = summary.clone();
        plain.events.clear();
        let body = serde_json::to_vec(&serde_json::json!({
            "event": event_name,
            "event_id": e.event.id,
            "at": e.event.at,
            "actor": e.event.actor,
            "subject": summary.subject(),
            "bisect": summary.bisect(),
            "links": {
                "alert": links.alert, "trend": links.trend, "compare": links.compare, "report": links.report,
            },
            "summary": plain,
        }))
        .map_err(|e| crate::services::ServiceError::Internal(e.into()))?;
        for w in &channels.webhooks {
            out.push(NewNotice {
                channel: "webhook",
                target: w.clone(),
                payload: body.clone(),
            });
        }
    }
    if let Some(m) = &channels.mail {
        let host = mail::host_of(&origin);
        let thread = mail::thread_id(summary.id, &host);
        let subject = format!("[perfline] {}", summary.subject());
        let mut builder = Message::builder()
            .from(m.from.clone())
            .header(ContentType::TEXT_PLAIN);
        for to in &m.to {
            builder = builder.to(to.clone());
        }
        let message = if first {
            let report = summary_report(state, &summary, &links).await;
            builder
                .subject(subject)
                .message_id(Some(thread))
                .body(mail::new_summary_body(&summary, &links, report.as_deref()))
        } else {
            // A reply in the alert's thread: the culprit in the robot's form when a bisection
            // moved the alert, else who changed what.
            let culprit = match e.event.kind.as_str() {
                "bisected" => bisection_of(state, &summary).await?,
                _ => None,
            };
            let body = match culprit {
                Some(b) => {
                    let report = summary_report(state, &summary, &links).await;
                    mail::culprit_body(&summary, &b, &links, &origin, report.as_deref())
                }
                None => mail::event_body(&summary, &e.event, &links),
            };
            builder
                .subject(format!("Re: {subject}"))
                .message_id(Some(format!(
                    "<perfline-alert-{}-{}@{host}>",
                    summary.id, e.event.id
                )))
                .in_reply_to(thread.clone())
                .references(thread)
                .body(body)
        }
        .map_err(|e| crate::services::ServiceError::Internal(e.into()))?;
        out.push(NewNotice {
            channel: "mail",
            target: m
                .to
                .iter()
                .map(|t| t.email.to_string())
                .collect::<Vec<_>>()
                .join(","),
            payload: message.formatted(),
        });
    }
    Ok(out)
}

/// Delivers the outbox, oldest first per target, until `stop`.
pub async fn run_deliverer(state: Services, stop: tokio::sync::watch::Receiver<bool>) {
    let st = &state;
    crate::services::alerts::run_leased(
        st,
        "deliverer",
        &st.wakers.outbox,
        None,
        stop,
        || async move {
            use crate::services::background::{pass_failed, passed};
            match deliver_once(st).await {
                Ok((true, _)) => {
                    passed(st, "deliverer");
                    crate::services::alerts::Next::Now
                }
                Ok((false, next)) => {
                    passed(st, "deliverer");
                    crate::services::alerts::Next::After(next.unwrap_or(Duration::from_secs(5)))
                }
                Err(e) => {
                    tracing::warn!(error = %e, "reading the outbox failed; retrying");
                    pass_failed(st, "deliverer", &e.to_string());
                    crate::services::alerts::Next::After(Duration::from_secs(1))
                }
            }
        },
    )
    .await;
}

/// Tries the head of every target that is due, at once. Whether anything was delivered, and
/// when the next head is due. A delivery that panics is set aside (`background::set_aside`),
/// and the target's next notification is due at once.
async fn deliver_once(
    state: &Services,
) -> Result<(bool, Option<Duration>), crate::services::ServiceError> {
    use crate::services::background::{isolate, set_aside, Item};
    let heads = state.store.outbox_heads().await?;
    let now = now_ms();
    let mut next: Option<i64> = None;
    let mut tries = tokio::task::JoinSet::new();
    for d in heads {
        if d.next_at > now {
            next = Some(next.map_or(d.next_at, |n: i64| n.min(d.next_at)));
            continue;
        }
        let state = state.clone();
        tries.spawn(async move {
            let what = format!(
                "the {} notification {} of a {} event",
                d.channel, d.id, d.event
            );
            let result = isolate(async {
                crate::services::background::fault(&state, &what);
                Ok(deliver(&state.channels, &d).await)
            })
            .await;
            (d, what, result)
        });
    }
    let mut delivered = false;
    while let Some(joined) = tries.join_next().await {
        let Ok((d, what, result)) = joined else {
            continue;
        };
        let result = match result {
            Ok(result) => result,
            Err(caught) => {
                let item = Item {
                    task: "deliverer",
                    kind: "delivery",
                    id: d.id,
                    series: None,
                    what,
                };
                set_aside(state, &item, caught).await?;
                delivered = true;
                continue;
            }
        };
        match result {
            Ok(()) => {
                delivered = true;
                state.store.delivery_attempt(d.id, Ok(())).await?;
            }
            Err(Failure { error, permanent }) => {
                let delay = state.channels.backoff(d.attempts);
                let give_up = permanent
                    || Duration::from_millis(d.age_ms.max(0) as u64) > state.channels.give_up;
                if give_up {
                    tracing::error!(id = d.id, channel = %d.channel, target = %d.target, error = %error, "notification given up");
                } else {
                    tracing::warn!(id = d.id, channel = %d.channel, target = %d.target, attempts = d.attempts + 1, error = %error, retry_in = ?delay, "notification not delivered");
                }
                let next_at = now_ms() + delay.as_millis() as i64;
                state
                    .store
                    .delivery_attempt(d.id, Err((&error, next_at, give_up)))
                    .await?;
                // Given up: the next one of this target is due now.
                delivered |= give_up;
                next = Some(next.map_or(next_at, |n| n.min(next_at)));
            }
        }
    }
    let next = next.map(|n| Duration::from_millis((n - now_ms()).max(10) as u64));
    Ok((delivered, next))
}

struct Failure {
    error: String,
    /// Retrying cannot help (a 4xx other than 408 and 429; a 5xx SMTP reply).
    permanent: bool,
}

async fn deliver(channels: &Channels, d: &Delivery) -> Result<(), Failure> {
    let transient = |error: String| Failure {
        error,
        permanent: false,
    };
    match d.channel.as_str() {
        "webhook" => {
            // The resolver guards names; an IP literal is never resolved, so it is checked
            // here (a row written while the flag was on, by this or another server).
            if !channels.allow_internal {
                if let Some((host, why)) = reqwest::Url::parse(&d.target)
                    .ok()
                    .as_ref()
                    .and_then(internal_host)
                {
                    return Err(transient(format!(
                        "{host} is {why}; --allow-internal-webhooks allows it"
                    )));
                }
            }
            let mut req = channels
                .http
                .post(&d.target)
                .header("content-type", "application/json")
                .header("x-perfline-event", &d.event)
                .header("x-perfline-delivery", d.id.to_string())
                .body(d.payload.clone());
            if let Some(secret) = &channels.secret {
                req = req.header("x-perfline-signature", signature(secret, &d.payload));
            }
            let resp = req.send().await.map_err(|e| transient(error_chain(&e)))?;
            let status = resp.status();
            if status.is_success() {
                Ok(())
            } else {
                Err(Failure {
                    error: format!("HTTP {status}"),
                    permanent: status.is_client_error()
                        && status != reqwest::StatusCode::REQUEST_TIMEOUT
                        && status != reqwest::StatusCode::TOO_MANY_REQUESTS,
                })
            }
        }
        "mail" => {
            let Some(m) = &channels.mail else {
                return Err(transient("mail is no longer configured (--smtp)".into()));
            };
            let to = d
                .target
                .split(',')
                .map(str::parse::<Address>)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| Failure {
                    error: e.to_string(),
                    permanent: true,
                })?;
            let envelope =
                lettre::address::Envelope::new(Some(m.from.email.clone()), to).map_err(|e| {
                    Failure {
                        error: e.to_string(),
                        permanent: true,
                    }
                })?;
            m.transport
                .send_raw(&envelope, &d.payload)
                .await
                .map(|_| ())
                .map_err(|e| Failure {
                    permanent: e.is_permanent(),
                    error: e.to_string(),
                })
        }
        other => Err(Failure {
            error: format!("unknown channel {other}"),
            permanent: true,
        }),
    }
}

/// The report of a summary's commits, when both are known (its names were parsed at upload).
/// The LKP-style report of a summary's two commits for its mail, when both are known (and
/// the report can be made: a failure is logged, and the mail goes without it).
async fn summary_report(
    state: &Services,
    summary: &app::alerts::AlertSummary,
    links: &mail::Links,
) -> Option<String> {
    let (query, link) = (report_query(summary)?, links.report.as_ref()?);
    state
        .report(&query, link)
        .await
        .map_err(|err| tracing::warn!(error = %err, "no report for the alert mail"))
        .ok()
        .map(|report| with_step_headline(&report, summary))
}

/// The report with its first line quoting the step as the alert does (one figure for one
/// step, `docs/statistics.md`): the report's table compares the two commits' runs by
/// lkp-tests' rules, and its own first line would quote that comparison instead.
fn with_step_headline(report: &str, summary: &app::alerts::AlertSummary) -> String {
    let (Some(lead), Some((_, rest))) = (summary.lead(), report.split_once("\n\n")) else {
        return report.to_owned();
    };
    if !report.starts_with("FYI, we noticed") {
        return report.to_owned();
    }
    format!(
        "FYI, we noticed a {:+.1}% {} of {} due to commit:\n\n{rest}",
        lead.change_pct,
        lead.verdict(),
        app::alerts::series_name(&summary.benchmark, &lead.title())
    )
}

/// The finished bisection that moved `summary` to its culprit, if one did.
async fn bisection_of(
    state: &Services,
    summary: &app::alerts::AlertSummary,
) -> Result<Option<app::bisection::Bisection>, crate::services::ServiceError> {
    let Some(id) = state.store.done_bisection_of(summary.id).await? else {
        return Ok(None);
    };
    match state.bisection_view(id).await {
        Ok(b) => Ok(Some(b)),
        Err(e) => {
            tracing::warn!(error = %e, "the bisection of the culprit mail");
            Ok(None)
        }
    }
}

fn report_query(summary: &app::alerts::AlertSummary) -> Option<app::trend::ReportQuery> {
    use app::label::CommitSha;
    Some(app::trend::ReportQuery {
        benchmark: summary.benchmark.clone(),
        machine: summary.machine.clone(),
        base: CommitSha::parse(summary.good.sha.as_deref()?).ok()?,
        bad: CommitSha::parse(summary.bad.sha.as_deref()?).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_hmac_sha256_in_hex() {
        // RFC 4231, test case 2.
        assert_eq!(
            signature("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn internal_addresses_are_told_apart_from_public_ones() {
        fn check(input: &str, expect: Option<&str>) {
            let ip: IpAddr = input.parse().unwrap();
            assert_eq!(internal_address(ip), expect, "{input}");
        }
        check("169.254.169.254", Some("a link-local address"));
        check("127.0.0.1", Some("a loopback address"));
        check("127.255.0.9", Some("a loopback address"));
        check("10.1.2.3", Some("a private address"));
        check("172.16.0.1", Some("a private address"));
        check("172.31.255.255", Some("a private address"));
        check("192.168.1.1", Some("a private address"));
        check("100.64.0.1", Some("a shared (CGNAT) address"));
        check("198.18.0.1", Some("a benchmarking-network address"));
        check("198.19.255.1", Some("a benchmarking-network address"));
        check("198.20.0.1", None);
        check("192.0.0.8", Some("a protocol-assignment address"));
        check("250.1.2.3", Some("a reserved address"));
        check("100.127.255.255", Some("a shared (CGNAT) address"));
        check("0.0.0.0", Some("an unspecified address"));
        check("0.1.2.3", Some("an unspecified address"));
        check("224.0.0.1", Some("a multicast address"));
        check("255.255.255.255", Some("a broadcast address"));
        check("::1", Some("a loopback address"));
        check("::", Some("an unspecified address"));
        check("fe80::1", Some("a link-local address"));
        check("fc00::1", Some("a unique-local address"));
        check("fd12:3456::1", Some("a unique-local address"));
        check("fec0::1", Some("a site-local address"));
        check("ff02::1", Some("a multicast address"));
        check("::ffff:169.254.169.254", Some("a link-local address"));
        check("::ffff:127.0.0.1", Some("a loopback address"));
        check("::ffff:10.0.0.1", Some("a private address"));
        check("64:ff9b::a9fe:a9fe", Some("a link-local address"));
        // Public: just outside the ranges, too.
        check("8.8.8.8", None);
        check("100.63.255.255", None);
        check("100.128.0.0", None);
        check("172.32.0.1", None);
        check("169.255.0.1", None);
        check("1.0.0.1", None);
        check("2001:4860:4860::8888", None);
        check("::ffff:8.8.8.8", None);
        check("64:ff9b::808:808", None);
        check("fbff::1", None);
    }

    #[test]
    fn webhook_hosts_inside_the_network_are_found_in_urls() {
        fn check(input: &str, expect: Option<(&str, &str)>) {
            let url = reqwest::Url::parse(input).unwrap();
            let got = internal_host(&url);
            assert_eq!(
                got.as_ref().map(|(h, why)| (h.as_str(), *why)),
                expect,
                "{input}"
            );
        }
        check(
            "http://169.254.169.254/latest/meta-data",
            Some(("169.254.169.254", "a link-local address")),
        );
        check("http://[::1]:1/x", Some(("[::1]", "a loopback address")));
        check(
            "https://[::ffff:7f00:1]/x",
            Some(("[::ffff:7f00:1]", "a loopback address")),
        );
        // The URL parser reads the odd IPv4 forms: 0x7f.1 is 127.0.0.1.
        check("http://0x7f.1/x", Some(("127.0.0.1", "a loopback address")));
        check(
            "http://localhost:8080/hook",
            Some(("localhost", "a loopback name")),
        );
        check(
            "http://LOCALHOST./hook",
            Some(("localhost.", "a loopback name")),
        );
        check(
            "http://app.localhost/hook",
            Some(("app.localhost", "a loopback name")),
        );
        check("https://hooks.example.org/perfline", None);
        check("https://8.8.8.8/x", None);
        check("https://localhost.example.org/x", None);
    }

    #[test]
    fn the_resolver_drops_internal_addresses_unless_allowed() {
        fn check(found: &[&str], allow: bool, expect: Result<&[&str], &str>) {
            let found: Vec<SocketAddr> = found.iter().map(|a| a.parse().unwrap()).collect();
            let got = keep_allowed("hooks.example.org", found.clone(), allow);
            let expect = expect
                .map(|e| {
                    e.iter()
                        .map(|a| a.parse().unwrap())
                        .collect::<Vec<SocketAddr>>()
                })
                .map_err(str::to_owned);
            assert_eq!(got, expect, "{found:?} allow={allow}");
        }
        check(&["93.184.216.34:0"], false, Ok(&["93.184.216.34:0"]));
        check(
            &["10.0.0.5:0", "93.184.216.34:0", "[::1]:0"],
            false,
            Ok(&["93.184.216.34:0"]),
        );
        check(
            &["169.254.169.254:0", "[fd00::1]:0"],
            false,
            Err(
                "hooks.example.org resolves only to internal addresses (169.254.169.254, \
                 fd00::1); --allow-internal-webhooks allows them",
            ),
        );
        check(
            &["127.0.0.1:0", "[::1]:0"],
            true,
            Ok(&["127.0.0.1:0", "[::1]:0"]),
        );
        check(&[], false, Ok(&[]));
    }

    #[tokio::test]
    async fn a_name_resolving_to_loopback_is_refused_at_delivery() {
        use reqwest::dns::Resolve;
        let guarded = GuardedResolver {
            allow_internal: false,
        };
        let err = match guarded.resolve("localhost".parse().unwrap()).await {
            Ok(addrs) => panic!("resolved to {:?}", addrs.collect::<Vec<_>>()),
            Err(e) => e.to_string(),
        };
        assert!(
            err.contains("localhost resolves only to internal addresses"),
            "{err}"
        );
        let open = GuardedResolver {
            allow_internal: true,
        };
        let addrs: Vec<_> = open
            .resolve("localhost".parse().unwrap())
            .await
            .unwrap()
            .collect();
        assert!(addrs.iter().all(|a| a.ip().is_loopback()) && !addrs.is_empty());
    }
}
