//! Who sent a site's result, as far as a site can tell without accounts: the sending address's
//! household, its /24 (IPv4) or /48 (IPv6: a home is given a /56 or a /48, 256 or 65,536
//! /64s, so one household counted as 256 submitters at /64, issue 59, and as six at /56 in the
//! fourteenth attack pass), and the key an installation of `iomark submit` keeps, where sent.
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
    /// The keyed hash of its address's [`neighbourhood`].
    pub neighbourhood: Option<String>,
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
            // Its family before the hash, so that one client over IPv4 and IPv6 counts once
            // where households are counted (`households`, `aggregate::independent`).
            network: sender.address.map(|a| {
                let family = if network(a).contains(':') { "6." } else { "4." };
                format!(
                    "{family}{}",
                    keyed(secret, &format!("network {}", network(a)))
                )
            }),
            neighbourhood: sender
                .address
                .map(|a| keyed(secret, &format!("neighbourhood {}", neighbourhood(a)))),
            installation: sender
                .installation
                .as_deref()
                .map(|k| keyed(secret, &format!("installation {k}"))),
        })
    }
}

/// The network an address stands for, a household: an IPv4 address's /24, an IPv6 address's
/// /48, the most a home is given (an IPv4-mapped one is its IPv4 address's). A dual-stack
/// client is still two, which is why nothing about a device moves on fewer than three
/// (`aggregate::AGREEING`). Submitters counted before at /64 or /56 keep that count.
pub fn network(address: IpAddr) -> String {
    block(address, 24, 48)
}

/// The neighbourhood of an address's household: an IPv4 address's /16, an IPv6 address's /32
/// (an IPv4-mapped or 6to4 one is its IPv4 address's). Households of one neighbourhood are not
/// independent: one organisation, one provider's block, one machine with several /24s (issue
/// 59's second attack pass named a device from three /24s of one /22), so a device's identity
/// moves only on households of several (`aggregate::AGREEING`). An IPv6 /32 is what a
/// provider is given, as a /16 is a provider's region: a /48 is what one home may hold
/// several of (a tunnel broker may route several to one account; the eleventh attack pass's three
/// /48s outweighed two IPv4 networks in a device's median). Neighbourhoods kept at /48
/// before keep that count.
pub fn neighbourhood(address: IpAddr) -> String {
    block(address, 16, 32)
}

/// The block of `v4` bits (IPv4) or `v6` bits (IPv6; an IPv4-mapped or 6to4 address is its
/// IPv4 address's) an address is in, written as an address and its prefix: `192.0.2.0/24`,
/// `2001:db8:1:0::/56`. The text is what the keyed hashes are of: it must not change.
fn block(address: IpAddr, v4: u32, v6: u32) -> String {
    match address {
        IpAddr::V4(ip) => {
            let masked = u32::from(ip) & (u32::MAX << (32 - v4));
            format!("{}/{v4}", std::net::Ipv4Addr::from(masked))
        }
        IpAddr::V6(ip) => match ip.to_ipv4_mapped().or_else(|| six_to_four(ip)) {
            Some(ip) => block(IpAddr::V4(ip), v4, v6),
            None => {
                let masked = u128::from(ip) & (u128::MAX << (128 - v6));
                let s = std::net::Ipv6Addr::from(masked).segments();
                let kept: Vec<String> = s[..v6.div_ceil(16) as usize]
                    .iter()
                    .map(|x| format!("{x:x}"))
                    .collect();
                format!("{}::/{v6}", kept.join(":"))
            }
        },
    }
}

/// The address family a submitter was first seen from (its network's hash begins `4.` or
/// `6.`); `Other` for one the site cannot tell (a key seen with no address, a result saved by a
/// terminal, a submitter counted before families were kept).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Family {
    V4,
    V6,
    Other,
}

impl Family {
    pub(crate) fn of(submitter: Option<&str>) -> Family {
        match submitter.and_then(|s| s.get(..2)) {
            Some("4.") => Family::V4,
            Some("6.") => Family::V6,
            _ => Family::Other,
        }
    }
}

/// How many households `submitters` are: the most distinct submitters of one address family.
/// One client over IPv4 and IPv6 is one IPv4 household and one IPv6 household, never two of
/// either (issue 59: a dual-stack client counted twice named a card, and made eight fake
/// failing cards "of 2 owners"). A submitter the site could not tell is one of its own.
pub fn households<'a>(submitters: impl Iterator<Item = Option<&'a str>>) -> usize {
    let mut seen: [std::collections::HashSet<&str>; 3] = Default::default();
    let mut untold = 0;
    for who in submitters {
        match who {
            Some(who) => {
                let at = match Family::of(Some(who)) {
                    Family::V4 => 0,
                    Family::V6 => 1,
                    Family::Other => 2,
                };
                seen[at].insert(who);
            }
            None => untold += 1,
        }
    }
    let [v4, v6, other] = seen.map(|s| s.len());
    v4.max(v6).max(other + untold)
}

/// The IPv4 address a 6to4 address (`2002:AABB:CCDD::/48`) carries: the same household as it
/// (issue 59's attack pass counted one home's IPv4 and its 6to4 /56s as several).
fn six_to_four(v6: std::net::Ipv6Addr) -> Option<std::net::Ipv4Addr> {
    let s = v6.segments();
    (s[0] == 0x2002).then(|| {
        let [a, b] = s[1].to_be_bytes();
        let [c, d] = s[2].to_be_bytes();
        std::net::Ipv4Addr::new(a, b, c, d)
    })
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
    fn a_household_is_counted_once_whichever_family_it_sends_over() {
        let v4 = |n: u8| format!("4.{n:032x}");
        let v6 = |n: u8| format!("6.{n:032x}");
        let (a4, a6, b4, c6) = (v4(1), v6(1), v4(2), v6(3));
        let of = |who: &[Option<&str>]| households(who.iter().copied());
        // One client over both families, many times: one.
        assert_eq!(of(&[Some(&a4), Some(&a6), Some(&a6), Some(&a4)]), 1);
        // Another over IPv4 and a third over IPv6: two (the first may be either).
        assert_eq!(of(&[Some(&a4), Some(&a6), Some(&b4), Some(&c6)]), 2);
        // A submitter counted before families were kept, and one the site could not tell.
        assert_eq!(of(&[Some("0123abcd"), Some("89abcdef"), None, None]), 4);
    }

    #[test]
    fn a_network_is_its_24_or_its_48() {
        let n = |a: &str| network(a.parse().unwrap());
        assert_eq!(n("192.0.2.77"), "192.0.2.0/24");
        assert_eq!(n("192.0.2.1"), n("192.0.2.254"));
        assert_ne!(n("192.0.2.1"), n("192.0.3.1"));
        assert_eq!(n("2001:db8:1:2:3:4:5:6"), "2001:db8:1::/48");
        assert_eq!(n("2001:db8:1:2::9"), n("2001:db8:1:2:ffff::1"));
        // A 6to4 address is its IPv4 address's household.
        assert_eq!(n("2002:0a66:0202:1::1"), "10.102.2.0/24");
        // The /64s and /56s of one home's /48 are one household (the fourteenth attack pass
        // was six submitters from six /56s); the next /48 another.
        assert_eq!(n("2001:db8:1:2::9"), n("2001:db8:1:ff::9"));
        assert_eq!(n("2001:db8:1:2::9"), n("2001:db8:1:502::9"));
        assert_ne!(n("2001:db8:1:2::9"), n("2001:db8:2:2::9"));
        assert_eq!(n("::ffff:192.0.2.9"), "192.0.2.0/24");
    }

    #[test]
    fn a_neighbourhood_is_a_16_or_a_32() {
        let n = |a: &str| neighbourhood(a.parse().unwrap());
        // Issue 59's second attack pass: three /24s of one /22, one neighbourhood.
        assert_eq!(n("127.43.0.1"), n("127.43.2.1"));
        assert_eq!(n("192.0.2.77"), "192.0.0.0/16");
        assert_ne!(n("192.0.2.77"), n("192.1.2.77"));
        assert_eq!(n("2001:db8:1:2:3:4:5:6"), "2001:db8::/32");
        // The eleventh: three /48s of one provider (a tunnel broker's), one neighbourhood.
        assert_eq!(n("2001:470:1::1"), n("2001:470:ffff::1"));
        assert_ne!(n("2001:470:1::1"), n("2001:471:1::1"));
        assert_eq!(n("2002:0a66:0202:1::1"), "10.102.0.0/16");
        assert_eq!(n("::ffff:192.0.2.9"), "192.0.0.0/16");
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
