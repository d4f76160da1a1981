// SPDX-License-Identifier: GPL-3.0-or-later
//! The admin's console: `/admin` (tokens, and the webhooks and mail settings), `/admin/rules`
//! (the alert rules, edited with a preview of what they would have raised), `/admin/audit`
//! (the audit trail, searched and paged). Every server function they call needs the admin
//! scope; a reader without it is answered 401 or 403 with a way to sign in, never the data.
//! Making and revoking tokens and editing rules are islands; the audit search is a plain GET
//! form.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::admin::{confirmed, go_to};
use super::{copy_to_clipboard, loading, prev_next};
use crate::api::{
    admin_create_token, admin_preview_rules, admin_revoke_token, admin_save_rules, get_admin_audit,
    get_admin_notify, get_admin_rules, get_admin_tokens,
};
use crate::console::{AuditPage, AuditSearch, NotifySettings, RulePreview, RuleSet, TokenRow};
use crate::error::PageError;

/// The console's own navigation, `here` marked as the current page.
fn console_nav(here: &'static str) -> impl IntoView {
    let link = move |href: &'static str, label: &'static str| {
        let current = (href == here).then_some("page");
        view! { <a href=href aria-current=current>{label}</a> }
    };
    view! {
        <nav class="console-nav" aria-label="Admin sections">
            {link("/admin", "Tokens and notifications")}
            {link("/admin/rules", "Alert rules")}
            {link("/admin/audit", "Audit trail")}
        </nav>
    }
}

/// What a reader who is not an admin sees instead of the data (the server answered the page
/// 401 or 403 already).
fn refused(e: PageError, next: &'static str) -> AnyView {
    match e {
        PageError::Forbidden(message) => view! {
            <section id="admin-refused">
                <h2>"Admins only"</h2>
                <p>{message}</p>
                <p><a href=format!("/signin?next={next}")>"Sign in with an admin token"</a></p>
            </section>
        }
        .into_any(),
        other => super::error_view(other),
    }
}

fn or_dash(v: Option<String>) -> String {
    v.unwrap_or_else(|| "-".to_owned())
}

#[component]
pub fn AdminPage() -> impl IntoView {
    let data = Resource::new(
        || (),
        |()| async move {
            let tokens = get_admin_tokens().await?;
            let notify = get_admin_notify().await?;
            Ok::<_, PageError>((tokens, notify))
        },
    );
    view! {
        <h1>"Admin"</h1>
        {console_nav("/admin")}
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match data.await {
                    Ok((tokens, notify)) => view! {
                        {tokens_view(tokens)}
                        {notify_view(notify)}
                    }
                    .into_any(),
                    Err(e) => refused(e, "/admin"),
                }
            })}
        </Suspense>
    }
}

fn tokens_view(tokens: Vec<TokenRow>) -> impl IntoView {
    let rows = tokens
        .into_iter()
        .map(|t| {
            let revoked = t.revoked_at.is_some();
            let action = if revoked {
                view! { <span class="muted">"revoked"</span> }.into_any()
            } else {
                view! { <RevokeToken id=t.id name=t.name.clone() /> }.into_any()
            };
            let class = if revoked { "token revoked" } else { "token" };
            view! {
                <tr class=class data-token=t.name.clone()>
                    <td>{t.name.clone()}</td>
                    <td>{t.scopes.clone()}</td>
                    <td>{t.created_at.clone()}</td>
                    <td>{or_dash(t.expires_at.clone())}</td>
                    <td>{t.last_used_at.clone().unwrap_or_else(|| "never".to_owned())}</td>
                    <td>{or_dash(t.revoked_at.clone())}</td>
                    <td>{action}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section aria-labelledby="tokens-h">
            <h2 id="tokens-h">"Tokens"</h2>
            <p class="muted">"Only each token's SHA-256 is stored: a token is shown once, when it is made. Revoking one ends its sessions."</p>
            <div class="table-scroll">
                <table id="tokens" class="console-table">
                    <thead><tr>
                        <th scope="col">"Name"</th><th scope="col">"Scopes"</th>
                        <th scope="col">"Created"</th><th scope="col">"Expires"</th>
                        <th scope="col">"Last used"</th><th scope="col">"Revoked"</th>
                        <th scope="col">"Action"</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <h3>"Make a token"</h3>
            <CreateToken />
        </section>
    }
}

fn notify_view(n: NotifySettings) -> impl IntoView {
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let list = |v: Vec<String>| {
        if v.is_empty() {
            "none".to_owned()
        } else {
            v.join(", ")
        }
    };
    view! {
        <section aria-labelledby="notify-h" id="notify">
            <h2 id="notify-h">"Webhooks and mail"</h2>
            <p class="muted">"Server options (" <code>"--webhook"</code> ", " <code>"--smtp"</code> ", " <code>"--mail-to"</code> ", docs/deploying.md), shown without their secrets: change them where the server is started."</p>
            <dl class="settings">
                <dt>"Alerts detected"</dt><dd>{yes_no(n.alerts_enabled)}</dd>
                <dt>"Webhooks"</dt><dd id="notify-webhooks">{list(n.webhooks)}</dd>
                <dt>"Webhooks signed"</dt><dd>{if n.webhook_signed { "yes (X-Perfline-Signature; the key is not shown)" } else { "no" }}</dd>
                <dt>"Internal webhook addresses allowed"</dt><dd>{yes_no(n.internal_webhooks_allowed)}</dd>
                <dt>"SMTP relay"</dt><dd id="notify-smtp">{n.smtp.unwrap_or_else(|| "none: no mail is sent".to_owned())}</dd>
                <dt>"SMTP credentials"</dt><dd>{if n.smtp_credentials { "set (not shown)" } else { "none" }}</dd>
                <dt>"Mail from"</dt><dd>{or_dash(n.mail_from)}</dd>
                <dt>"Mail to"</dt><dd id="notify-mail-to">{list(n.mail_to)}</dd>
                <dt>"Notifications waiting"</dt><dd>{n.outbox}</dd>
            </dl>
        </section>
    }
}

/// The form that makes a token, and the token made, shown once.
#[island]
fn CreateToken() -> impl IntoView {
    let name = RwSignal::new(String::new());
    let scopes = RwSignal::new(vec!["upload".to_owned()]);
    let days = RwSignal::new(String::new());
    let status = RwSignal::new(String::new());
    let issued = RwSignal::new(None::<crate::console::IssuedToken>);
    let copied = RwSignal::new(String::new());
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let expires_days = match days.get_untracked().trim() {
            "" => None,
            d => match d.parse::<u32>() {
                Ok(d) => Some(d),
                Err(_) => {
                    status.set("Expires: a number of days, or empty for never.".to_owned());
                    return;
                }
            },
        };
        let form = crate::console::NewTokenForm {
            name: name.get_untracked(),
            scopes: scopes.get_untracked().join(","),
            expires_days,
        };
        status.set("Making the token…".to_owned());
        leptos::task::spawn_local(async move {
            match admin_create_token(form).await {
                Ok(t) => {
                    status.set(format!(
                        "Made token '{}' with the scopes {}. Copy it now: it is not shown again.",
                        t.name, t.scopes
                    ));
                    issued.set(Some(t));
                }
                Err(e) => status.set(format!("Could not make the token: {e}")),
            }
        });
    };
    let scope_box = move |scope: &'static str| {
        let id = format!("token-scope-{scope}");
        let for_id = id.clone();
        view! {
            <label class="check" for=for_id>
                <input type="checkbox" id=id value=scope
                    prop:checked=move || scopes.get().iter().any(|s| s == scope)
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        scopes.update(|v| {
                            v.retain(|s| s != scope);
                            if on { v.push(scope.to_owned()); }
                        });
                    } />
                {scope}
            </label>
        }
    };
    view! {
        <form id="create-token" class="form" on:submit=submit>
            <label for="token-name">"Name"</label>
            <input id="token-name" type="text" maxlength="100" required placeholder="robot-lkp-1"
                on:input=move |ev| name.set(event_target_value(&ev)) />
            <span id="token-scopes-label">"Scopes"</span>
            <span role="group" aria-labelledby="token-scopes-label" class="scopes">
                {scope_box("read")} {scope_box("upload")} {scope_box("mark")} {scope_box("admin")}
            </span>
            <label for="token-days">"Expires in days"</label>
            <input id="token-days" type="text" inputmode="numeric" maxlength="4" placeholder="never"
                on:input=move |ev| days.set(event_target_value(&ev)) />
            <div></div>
            <button type="submit" id="create-token-submit">"Make the token"</button>
        </form>
        <p id="create-token-status" role="status">{move || status.get()}</p>
        {move || issued.get().map(|t| {
            let secret = t.token.clone();
            view! {
                <p class="secret">
                    <label for="new-token">"The new token (shown once): "</label>
                    <input id="new-token" type="text" readonly value=t.token.clone() size="56" />
                    " "
                    <button type="button" id="copy-token"
                        on:click=move |_| copy_to_clipboard("token", secret.clone(), copied)>"Copy"</button>
                    " " <span role="status">{move || copied.get()}</span>
                </p>
                <p><a href="/admin">"Reload the list"</a></p>
            }
        })}
    }
}

/// A live token's revoke button, after a confirmation.
#[island]
fn RevokeToken(id: i64, name: String) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let label = format!("Revoke {name}");
    let revoke = move |_| {
        if !confirmed(&format!(
            "Revoke token '{name}'? Whoever uses it is refused from now on, and its sessions end."
        )) {
            return;
        }
        leptos::task::spawn_local(async move {
            match admin_revoke_token(id).await {
                Ok(()) => go_to("/admin"),
                Err(e) => status.set(format!("Could not revoke: {e}")),
            }
        });
    };
    view! {
        <button type="button" class="danger revoke-token" aria-label=label on:click=revoke>"Revoke"</button>
        <span role="status">{move || status.get()}</span>
    }
}

#[component]
pub fn AdminRulesPage() -> impl IntoView {
    let data = Resource::new(|| (), |()| get_admin_rules());
    view! {
        <h1>"Alert rules"</h1>
        {console_nav("/admin/rules")}
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(rules) => rules_view(rules).into_any(),
                    Err(e) => refused(e, "/admin/rules"),
                }
            })}
        </Suspense>
    }
}

fn rules_view(set: RuleSet) -> impl IntoView {
    let empty = set.rows.is_empty();
    let rows = set
        .rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            view! {
                <tr>
                    <td class="num">{i + 1}</td>
                    <td class="mono">{r.benchmark}</td>
                    <td class="mono">{r.metric}</td>
                    <td>{r.settings}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section aria-labelledby="rules-h">
            <h2 id="rules-h">"In force"</h2>
            <p class="muted">"The first rule whose benchmark and metric patterns match a series sets how it alerts. " {set.defaults}</p>
            {if empty {
                view! { <p id="rules-empty">"No rules: every series alerts with the defaults."</p> }.into_any()
            } else {
                view! {
                    <div class="table-scroll">
                        <table id="rules" class="console-table">
                            <thead><tr>
                                <th scope="col">"#"</th><th scope="col">"Benchmark"</th>
                                <th scope="col">"Metric"</th><th scope="col">"Settings"</th>
                            </tr></thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </div>
                }.into_any()
            }}
            <h2>"Edit"</h2>
            <RulesEditor json=set.json />
        </section>
    }
}

/// The rules as JSON, previewed over the stored series before they are saved.
#[island]
fn RulesEditor(json: String) -> impl IntoView {
    let text = RwSignal::new(json.clone());
    let status = RwSignal::new(String::new());
    let preview = RwSignal::new(None::<RulePreview>);
    let busy = RwSignal::new(false);
    let run_preview = move |_| {
        busy.set(true);
        status.set("Running the rules over the stored series…".to_owned());
        leptos::task::spawn_local(async move {
            match admin_preview_rules(text.get_untracked()).await {
                Ok(p) => {
                    status.set(String::new());
                    preview.set(Some(p));
                }
                Err(e) => {
                    preview.set(None);
                    status.set(format!("Could not preview: {e}"));
                }
            }
            busy.set(false);
        });
    };
    let save = move |_| {
        if !confirmed("Replace the alert rules? The detector uses them from its next series on.") {
            return;
        }
        leptos::task::spawn_local(async move {
            match admin_save_rules(text.get_untracked()).await {
                Ok(rules) => {
                    status.set(format!("Saved {rules} rules."));
                    go_to("/admin/rules");
                }
                Err(e) => status.set(format!("Could not save: {e}")),
            }
        });
    };
    view! {
        <p class="muted">
            "A JSON list of rules, as " <code>"PUT /api/v1/alert-rules"</code> " takes them: "
            <code>"benchmark"</code> ", " <code>"metric"</code> " (glob patterns), "
            <code>"min_change_pct"</code> ", " <code>"alpha"</code> ", " <code>"min_before"</code> ", "
            <code>"min_after"</code> ", " <code>"min_local_t"</code> ", " <code>"ignore"</code> ", " <code>"direction"</code> ", "
            <code>"confirm"</code> ", " <code>"history"</code> ", " <code>"bisect"</code> "."
        </p>
        <label for="rules-json" class="block">"Rules"</label>
        <textarea id="rules-json" class="rules-editor" rows="12" spellcheck="false"
            prop:value=move || text.get()
            on:input=move |ev| text.set(event_target_value(&ev))>{json}</textarea>
        <p class="buttons">
            <button type="button" id="rules-preview" on:click=run_preview disabled=move || busy.get()>"Preview the last 90 days"</button>
            " "
            <button type="button" id="rules-save" on:click=save>"Save"</button>
        </p>
        <p id="rules-status" role="status">{move || status.get()}</p>
        {move || preview.get().map(preview_view)}
    }
}

fn preview_view(p: RulePreview) -> impl IntoView {
    let capped = if p.out_of_time {
        format!(
            " Only the first {} were examined (the time limit; those a rule names first): the rest may raise more.",
            p.examined
        )
    } else if p.examined < p.series_total.saturating_sub(p.ignored) {
        format!(
            " Only the first {} were examined (the cap of {}; those a rule names first): the rest may raise more.",
            p.examined, p.cap
        )
    } else {
        String::new()
    };
    let summary = format!(
        "{} alerts in the last {} days: {} series with runs in that time, {} ignored by a rule, {} examined.{}",
        p.alerts.len() + p.alerts_left_out,
        p.days,
        p.series_total,
        p.ignored,
        p.examined,
        capped
    );
    let left_out = (p.alerts_left_out > 0).then(
        || view! { <p class="muted">{format!("{} more not listed.", p.alerts_left_out)}</p> },
    );
    let rows = p
        .alerts
        .into_iter()
        .map(|a| {
            let class = if a.regression {
                "regression"
            } else {
                "improvement"
            };
            view! {
                <tr class=class>
                    <td>{a.benchmark}</td>
                    <td>{a.machine}</td>
                    <td><a href=a.trend>{a.series}</a></td>
                    <td class="mono">{a.at}</td>
                    <td class="num">{format!("{:+.1} %", a.change_pct)}</td>
                    <td class="num">{format!("{:.4}", a.p_value)}</td>
                    <td>{if a.regression { "regression" } else { "improvement" }}</td>
                    <td>{a.rule.map_or_else(|| "defaults".to_owned(), |r| format!("rule {r}"))}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section id="rules-preview-result" aria-live="polite">
            <h3>"Preview"</h3>
            <p id="rules-preview-summary">{summary}</p>
            <div class="table-scroll">
                <table class="console-table">
                    <thead><tr>
                        <th scope="col">"Benchmark"</th><th scope="col">"Machine"</th>
                        <th scope="col">"Series"</th><th scope="col">"At"</th>
                        <th scope="col">"Change"</th><th scope="col">"p"</th>
                        <th scope="col">"Kind"</th><th scope="col">"Rule"</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            {left_out}
        </section>
    }
}

fn search_from_map(map: &leptos_router::params::ParamsMap) -> AuditSearch {
    let get = |k: &str| map.get(k).unwrap_or_default();
    AuditSearch {
        actor: get("actor"),
        action: get("action"),
        target: get("target"),
        since: get("since"),
        until: get("until"),
        offset: map.get("offset").and_then(|v| v.parse().ok()).unwrap_or(0),
    }
}

#[component]
pub fn AdminAuditPage() -> impl IntoView {
    let search = search_from_map(&use_query_map().read_untracked());
    let data = {
        let search = search.clone();
        Resource::new(|| (), move |()| get_admin_audit(search.clone()))
    };
    let field = |id: &'static str, label: &'static str, kind: &'static str, value: String| {
        view! {
            <label for=format!("audit-{id}")>{label}</label>
            <input id=format!("audit-{id}") name=id type=kind value=value maxlength="200" />
        }
    };
    view! {
        <h1>"Audit trail"</h1>
        {console_nav("/admin/audit")}
        <form id="audit-search" class="form" method="get" action="/admin/audit" role="search">
            {field("actor", "Actor", "text", search.actor.clone())}
            {field("action", "Action", "text", search.action.clone())}
            {field("target", "Target", "text", search.target.clone())}
            {field("since", "From (day)", "date", search.since.clone())}
            {field("until", "To (day)", "date", search.until.clone())}
            <div></div>
            <button type="submit" id="audit-submit">"Search"</button>
        </form>
        <Suspense fallback=loading>
            {move || {
                let search = search.clone();
                Suspend::new(async move {
                    match data.await {
                        Ok(page) => audit_view(page, &search).into_any(),
                        Err(e) => refused(e, "/admin/audit"),
                    }
                })
            }}
        </Suspense>
    }
}

fn audit_view(page: AuditPage, search: &AuditSearch) -> impl IntoView {
    let shown = page.entries.len() as i64;
    let summary = if page.total == 0 {
        "No line of the audit trail matches.".to_owned()
    } else {
        format!(
            "Lines {} to {} of {}, newest first.",
            page.offset + 1,
            page.offset + shown,
            page.total
        )
    };
    let prev = (page.offset > 0).then(|| {
        format!(
            "/admin/audit?{}",
            search.query((page.offset - page.limit).max(0))
        )
    });
    let next = (page.offset + shown < page.total)
        .then(|| format!("/admin/audit?{}", search.query(page.offset + page.limit)));
    let rows = page
        .entries
        .into_iter()
        .map(|e| {
            view! {
                <tr class="audit-line">
                    <td class="mono">{e.at}</td>
                    <td>{e.actor}</td>
                    <td class="mono">{e.action}</td>
                    <td>{e.target}</td>
                    <td>{e.detail}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p id="audit-summary" role="status">{summary}</p>
        <div class="table-scroll">
            <table id="audit" class="console-table">
                <thead><tr>
                    <th scope="col">"When (UTC)"</th><th scope="col">"Actor"</th>
                    <th scope="col">"Action"</th><th scope="col">"Target"</th>
                    <th scope="col">"Detail"</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <p class="pager">{prev_next(prev, next)}</p>
    }
}
