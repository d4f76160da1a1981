// SPDX-License-Identifier: GPL-3.0-or-later
//! Databases for the store's tests, on both engines: the conformance suite runs every store
//! test once on a SQLite file and once on a fresh database of the throwaway PostgreSQL cluster
//! `scripts/test` starts (`PERFLINE_TEST_PG`; without it the PostgreSQL half fails, never
//! skips).

use super::Store;

/// Runs each named store test, an `async fn(&TestDb)`, on both engines, as the tests
/// `name::sqlite` and `name::postgres`.
macro_rules! on_both_engines {
    ($($name:ident),* $(,)?) => {
        $(mod $name {
            #[tokio::test(flavor = "multi_thread")]
            async fn sqlite() {
                super::$name(&$crate::store::testdb::TestDb::sqlite()).await;
            }

            #[tokio::test(flavor = "multi_thread")]
            async fn postgres() {
                super::$name(&$crate::store::testdb::TestDb::postgres().await).await;
            }
        })*
    };
}
pub(crate) use on_both_engines;

/// One test's database; each [`TestDb::open`] is another server's store on it.
pub enum TestDb {
    Sqlite(tempfile::TempDir),
    Postgres(String),
}

impl TestDb {
    pub fn sqlite() -> TestDb {
        TestDb::Sqlite(tempfile::tempdir().expect("a temporary directory"))
    }

    /// A new empty database on the test cluster.
    pub async fn postgres() -> TestDb {
        let base = std::env::var("PERFLINE_TEST_PG").expect(
            "PERFLINE_TEST_PG names no PostgreSQL: run scripts/test, which starts a throwaway cluster",
        );
        TestDb::Postgres(
            super::postgres::create_database(&base, "s")
                .await
                .expect("a fresh database on the test cluster"),
        )
    }

    pub async fn open(&self) -> Store {
        match self {
            TestDb::Sqlite(dir) => Store::open(&dir.path().join("t.db")).await,
            TestDb::Postgres(url) => {
                Store::open_postgres(
                    url,
                    &crate::store::Connect {
                        pool_size: 4,
                        ..Default::default()
                    },
                )
                .await
            }
        }
        .expect("the store opens")
    }
}
