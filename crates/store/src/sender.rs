//! Who sent a site's result, as far as a site can tell without accounts: the sending address's
//! /24 (IPv4) or /64 (IPv6), and the key an installation of `iomark submit` keeps, where sent.
//! Neither is stored as given: each is kept as a hash keyed with a secret of the store's own
//! (made at the first submission, kept in `meta`, shared by every server of one store), so the
//! store links a submitter's results without holding their address. A key never splits one
//! address into several submitters: it only joins the addresses it is seen from to the
//! submitter it was first seen with (`installations`), so sending a fresh key with every
//! result counts for nothing.

use std::net::IpAddr;

use sha2::{Digest, Sha256};
use sqlx::{Any, Row, Transaction};

use super::{Db, StoreError};

/// What a site knows of a submission's sender.
#[derive(Clone, Debug, Default)]
pub struct Sender {
    /// The address it came from (the proxy's client where the site trusts one).
    pub address: Option<IpAddr>,
    /// The installation key `iomark submit` sent, if any.
    pub installation: Option<String>,
}

/// A submission as the store keeps its sender: the hash of its deletion token, and the keyed
/// hashes of its address's network and of its installation key.
#[derive(Clone, Debug)]
pub(crate) struct Sent {
    pub token_hash: String,
    pub network: Option<String>,
    pub installation: Option<String>,
}

/// The store's secret for keyed hashes, read (or made) once.
#[derive(Default)]
pub(crate) struct Secret(tokio::sync::OnceCell<String>);

impl Secret {
    /// The secret, made at the first submission of a store and read from `meta` after.
    async fn get(&self, db: &Db) -> Result<&str, StoreError> {
        self.0
            .get_or_try_init(|| db.kept("sender secret", iomark_result::result::token::new_token))
            .await
            .map(String::as_str)
    }

    /// How the store keeps `sender` beside a submission whose token hashes to `token_hash`.
    pub(crate) async fn seal(
        &self,
        db: &Db,
        token_hash: &str,
        sender: &Sender,
    ) -> Result<Sent, StoreError> {
        let secret = self.get(db).await?;
        Ok(Sent {
            token_hash: token_hash.to_string(),
            network: sender
                .address
                .map(|a| keyed(secret, &format!("network {}", network(a)))),
            installation: sender
                .installation
                .as_deref()
                .map(|k| keyed(secret, &format!("installation {k}"))),
        })
    }
}

/// The network an address stands for: an IPv4 address's /24, an IPv6 address's /64 (an
/// IPv4-mapped one is its IPv4 address's).
pub fn network(address: IpAddr) -> String {
    match address {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            format!("{a}.{b}.{c}.0/24")
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => network(IpAddr::V4(v4)),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

/// `what`'s SHA-256 keyed with `secret` (as HMAC does, inner and outer), in hex, shortened to
/// 128 bits: enough that two networks never meet, and nothing a reader can reverse without
/// the secret.
fn keyed(secret: &str, what: &str) -> String {
    let inner = Sha256::new()
        .chain_update(b"iomark sender inner\n")
        .chain_update(secret.as_bytes())
        .chain_update(b"\n")
        .chain_update(what.as_bytes())
        .finalize();
    let outer = Sha256::new()
        .chain_update(b"iomark sender outer\n")
        .chain_update(secret.as_bytes())
        .chain_update(inner)
        .finalize();
    outer[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// The submitter a submission counts as, in the transaction that saves it: the submitter its
/// installation key was first seen with, or else its network, as first seen now. None where
/// the site knows neither (a result saved by a terminal, or before submitters were counted).
pub(crate) async fn submitter(
    tx: &mut Transaction<'_, Any>,
    sent: &Sent,
) -> Result<Option<String>, sqlx::Error> {
    let Some(installation) = &sent.installation else {
        return Ok(sent.network.clone());
    };
    let seen: Option<String> =
        sqlx::query("SELECT submitter FROM installations WHERE key_hash = $1")
            .bind(installation)
            .fetch_optional(&mut **tx)
            .await?
            .map(|row| row.try_get(0))
            .transpose()?;
    if seen.is_some() {
        return Ok(seen);
    }
    // A key first seen with no address (a site that cannot tell) is its own submitter.
    let first = sent.network.clone().unwrap_or_else(|| installation.clone());
    sqlx::query(
        "INSERT INTO installations (key_hash, submitter) VALUES ($1, $2) \
         ON CONFLICT (key_hash) DO NOTHING",
    )
    .bind(installation)
    .bind(&first)
    .execute(&mut **tx)
    .await?;
    Ok(Some(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_network_is_its_24_or_its_64() {
        let n = |a: &str| network(a.parse().unwrap());
        assert_eq!(n("192.0.2.77"), "192.0.2.0/24");
        assert_eq!(n("192.0.2.1"), n("192.0.2.254"));
        assert_ne!(n("192.0.2.1"), n("192.0.3.1"));
        assert_eq!(n("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
        assert_eq!(n("2001:db8:1:2::9"), n("2001:db8:1:2:ffff::1"));
        assert_ne!(n("2001:db8:1:2::9"), n("2001:db8:1:3::9"));
        assert_eq!(n("::ffff:192.0.2.9"), "192.0.2.0/24");
    }

    #[test]
    fn a_keyed_hash_hides_what_it_keys_and_differs_by_secret() {
        let a = keyed("secret one", "network 192.0.2.0/24");
        assert_eq!(a.len(), 32);
        assert!(!a.contains("192"));
        assert_eq!(a, keyed("secret one", "network 192.0.2.0/24"));
        assert_ne!(a, keyed("secret two", "network 192.0.2.0/24"));
        assert_ne!(a, keyed("secret one", "network 192.0.3.0/24"));
    }
}
