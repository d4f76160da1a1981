//! Notifications: every alert event becomes one outbox row per webhook and one per mail (the
//! notifier), and the outbox is delivered in order per target with retries (the deliverer).
//! A webhook is a JSON POST signed with HMAC-SHA256; a mail goes to an SMTP relay.

use std::time::Duration;

use hmac::{Hmac, Mac};
use lettre::message::{header::ContentType, Mailbox, Message};
use lettre::{Address, AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use sha2::Sha256;

use super::mail;
use crate::store::{Delivery, NewNotice, PendingEvent};
use crate::AppState;

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
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(15))
                .redirect(reqwest::redirect::Policy::none())
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
pub async fn run_notifier(state: AppState, mut stop: tokio::sync::watch::Receiver<bool>) {
    let mut lease = crate::alerts::Lease::new("notifier");
    loop {
        if *stop.borrow() {
            return;
        }
        // One server at a time runs this task (the others wait for the lease).
        if !lease.held(&state).await {
            tokio::select! {
                _ = tokio::time::sleep(crate::alerts::LEASE_RETRY) => continue,
                _ = stop.changed() => return,
            }
        }
        let notified = state.wakers.events.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let wait = match notify_once(&state).await {
            Ok(0) => Duration::from_secs(5),
            Ok(_) => {
                state.wakers.outbox.notify_one();
                continue;
            }
            Err(e) => {
                tracing::warn!(error = %e, "rendering notifications failed; retrying");
                Duration::from_secs(1)
            }
        };
        tokio::select! {
            _ = &mut notified => {}
            _ = tokio::time::sleep(wait) => {}
            _ = stop.changed() => return,
        }
    }
}

/// One batch of events: how many were handled.
pub async fn notify_once(state: &AppState) -> Result<usize, crate::error::ApiError> {
    let events = state.store.unnotified_events(64).await?;
    for e in &events {
        let notices = render(state, e).await?;
        state.store.enqueue_notices(e.event.id, &notices).await?;
    }
    Ok(events.len())
}

/// The outbox rows of one event: one per webhook, one mail.
async fn render(
    state: &AppState,
    e: &PendingEvent,
) -> Result<Vec<NewNotice>, crate::error::ApiError> {
    let channels = &state.channels;
    if !channels.any() {
        return Ok(Vec::new());
    }
    let Some(summary) = state.store.alert_summary(e.summary_id).await? else {
        return Ok(Vec::new());
    };
    let origin = state.notice_origin();
    let links = mail::Links::new(&origin, &summary);
    let event_name = if e.event.kind == "new" {
        "alert.new"
    } else {
        "alert.status"
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
        .map_err(|e| crate::error::ApiError::Internal(e.into()))?;
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
        let message = if e.event.kind == "new" {
            let report = match (&summary.good.sha, &summary.bad.sha, &links.report) {
                (Some(good), Some(bad), Some(link)) => state
                    .report(&summary.benchmark, &summary.machine, good, bad, link)
                    .await
                    .map_err(|err| tracing::warn!(error = %err, "no report for the alert mail"))
                    .ok(),
                _ => None,
            };
            builder
                .subject(subject)
                .message_id(Some(thread))
                .body(mail::new_summary_body(&summary, &links, report.as_deref()))
        } else {
            builder
                .subject(format!("Re: {subject}"))
                .message_id(Some(format!(
                    "<perfline-alert-{}-{}@{host}>",
                    summary.id, e.event.id
                )))
                .in_reply_to(thread.clone())
                .references(thread)
                .body(mail::event_body(&summary, &e.event, &links))
        }
        .map_err(|e| crate::error::ApiError::Internal(e.into()))?;
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
pub async fn run_deliverer(state: AppState, mut stop: tokio::sync::watch::Receiver<bool>) {
    let mut lease = crate::alerts::Lease::new("deliverer");
    loop {
        if *stop.borrow() {
            return;
        }
        // One server at a time runs this task (the others wait for the lease).
        if !lease.held(&state).await {
            tokio::select! {
                _ = tokio::time::sleep(crate::alerts::LEASE_RETRY) => continue,
                _ = stop.changed() => return,
            }
        }
        let notified = state.wakers.outbox.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let wait = match deliver_once(&state).await {
            Ok((true, _)) => continue,
            Ok((false, next)) => next.unwrap_or(Duration::from_secs(5)),
            Err(e) => {
                tracing::warn!(error = %e, "reading the outbox failed; retrying");
                Duration::from_secs(1)
            }
        };
        tokio::select! {
            _ = &mut notified => {}
            _ = tokio::time::sleep(wait) => {}
            _ = stop.changed() => return,
        }
    }
}

/// Tries the head of every target that is due, at once. Whether anything was delivered, and
/// when the next head is due.
async fn deliver_once(
    state: &AppState,
) -> Result<(bool, Option<Duration>), crate::store::StoreError> {
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
            let result = deliver(&state.channels, &d).await;
            (d, result)
        });
    }
    let mut delivered = false;
    while let Some(joined) = tries.join_next().await {
        let Ok((d, result)) = joined else { continue };
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
            let resp = req.send().await.map_err(|e| transient(e.to_string()))?;
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
}
