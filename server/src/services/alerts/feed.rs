// SPDX-License-Identifier: GPL-3.0-or-later
//! The Atom feed of alerts (`GET /alerts.atom`): the newest summaries, each with its table
//! and how to bisect it.

use app::alerts::AlertFilter;

use crate::services::{ServiceResult, Services};

impl Services {
    /// The newest 50 summaries as an Atom feed; links start with `origin`.
    pub async fn alerts_feed(&self, origin: &str) -> ServiceResult<String> {
        use atom_syndication::{Content, Entry, Feed, Link, Person, Text};
        let filter = super::parse_filter(&AlertFilter::default())?;
        let page = self.store.alert_summaries(&filter).await?;
        let time =
            |t: &str| atom_syndication::FixedDateTime::parse_from_rfc3339(t).unwrap_or_default();
        let entries: Vec<Entry> = page
            .summaries
            .iter()
            .map(|s| {
                let links = super::mail::Links::new(origin, s);
                let mut text = format!("Status: {}\n\n", s.status);
                text.push_str(&super::mail::alert_table(s));
                text.push_str(&format!("\nTo bisect: {}\n", s.bisect()));
                Entry {
                    id: format!("{origin}/alerts?id={}", s.id),
                    title: Text::plain(s.subject()),
                    updated: time(&s.updated_at),
                    published: Some(time(&s.created_at)),
                    links: vec![Link {
                        href: links.alert,
                        rel: "alternate".into(),
                        ..Link::default()
                    }],
                    content: Some(Content {
                        value: Some(text),
                        content_type: Some("text".into()),
                        ..Content::default()
                    }),
                    ..Entry::default()
                }
            })
            .collect();
        let feed = Feed {
            id: format!("{origin}/alerts.atom"),
            title: Text::plain("Perfline alerts"),
            updated: page
                .summaries
                .first()
                .map(|s| time(&s.updated_at))
                .unwrap_or_default(),
            authors: vec![Person {
                name: "Perfline".into(),
                ..Person::default()
            }],
            links: vec![
                Link {
                    href: format!("{origin}/alerts.atom"),
                    rel: "self".into(),
                    ..Link::default()
                },
                Link {
                    href: format!("{origin}/alerts"),
                    rel: "alternate".into(),
                    ..Link::default()
                },
            ],
            entries,
            ..Feed::default()
        };
        Ok(feed.to_string())
    }
}
