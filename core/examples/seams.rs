//! The two network seams a vendor may fill: `Resolve` (names to
//! addresses, here a fixed table instead of the system's resolver) and
//! `Dial` (addresses to byte streams, here plain TCP that logs each
//! dial). Whatever they do, the policy stays: every address a resolver
//! returns is judged against the blocked table before anything is
//! dialled, and a `Dial` is only ever handed a `VettedAddr`.
//!
//! `cargo run -p webgate --example seams`

use std::net::IpAddr;
use std::sync::Arc;

use webgate::fetch::Fetcher;
use webgate::net::{BoxFuture, Dial, Io, LookupFailed, Resolve};
use webgate::policy::VettedAddr;

/// A fixed table of answers; names not in it do not exist.
struct Table(Vec<(&'static str, IpAddr)>);

impl Resolve for Table {
    fn resolve<'a>(&'a self, host: &'a str) -> BoxFuture<'a, Result<Vec<IpAddr>, LookupFailed>> {
        let found: Vec<IpAddr> = self
            .0
            .iter()
            .filter(|(name, _)| *name == host)
            .map(|(_, ip)| *ip)
            .collect();
        Box::pin(async move {
            if found.is_empty() {
                Err(LookupFailed::NoSuchName)
            } else {
                Ok(found)
            }
        })
    }
}

/// Plain TCP, saying where it goes.
struct LoggedDial;

impl Dial for LoggedDial {
    fn dial(&self, addr: VettedAddr, port: u16) -> BoxFuture<'_, std::io::Result<Box<dyn Io>>> {
        eprintln!("dialling {}:{port} (vetted)", addr.ip());
        Box::pin(async move {
            let stream = tokio::net::TcpStream::connect((addr.ip(), port)).await?;
            stream.set_nodelay(true)?;
            Ok(Box::new(stream) as Box<dyn Io>)
        })
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A name that resolves to a private address is refused however it
    // was resolved: the table is not a setting.
    let table = Table(vec![("intranet.example", "10.0.0.7".parse()?)]);
    let fetcher = Fetcher::builder()
        .resolver(Arc::new(table))
        .dialer(Arc::new(LoggedDial))
        .build()?;
    let outcome = fetcher
        .call(&serde_json::json!({ "url": "https://intranet.example/" }))
        .await;
    // `host intranet.example has no allowed address` (hard), and nothing
    // was dialled.
    println!(
        "{} {}: {}",
        outcome.class.as_str(),
        outcome.id,
        outcome.text
    );
    Ok(())
}
