//! What in a word names someone: an address (`alice@host`, `alice(at)example.com`), a machine
//! on a home network or a dynamic DNS name, a serial number glued to what says it is one.

/// The ends of a machine's name on a local network (mDNS's `.local`, a router's `.lan`).
#[rustfmt::skip]
const LOCAL_NAMES: [&str; 22] = [
    ".local", ".lan", ".home", ".home.arpa", ".localdomain", ".internal", ".fritz.box",
    ".speedport.ip", ".corp", ".intranet", ".router", ".myfritz.net", ".duckdns.org",
    ".dyndns.org", ".no-ip.org", ".ddns.net", ".synology.me", ".tplinkdns.com",
    ".freeboxos.fr", ".dynu.net", ".hopto.org", ".mooo.com",
];

/// Whether a word names someone: someone at a machine (`alice@bobpc:~$`), or an address, a
/// name either side of its `@` or its `(at)`; a machine by its name on a home network
/// (`chris-desktop.local`, `alice-pc.fritz.box`) or a dynamic DNS name.
pub(super) fn names_someone(folded: &str, lower: &str) -> bool {
    let at = folded.char_indices().any(|(at, c)| {
        c == '@'
            && folded[..at].ends_with(char::is_alphanumeric)
            && folded[at + 1..].starts_with(char::is_alphanumeric)
    });
    let spelt = ["(at)", "[at]"].iter().any(|at| {
        lower
            .find(at)
            .is_some_and(|i| i > 0 && lower.len() > i + at.len())
    });
    let name = lower.trim_end_matches(|c: char| ".,;:)]}'\"".contains(c));
    let local = LOCAL_NAMES
        .iter()
        .any(|end| name.len() > end.len() && name.ends_with(end));
    at || spelt || local || host_name(name)
}

/// Whether a word is a machine's full name (`zq-laptop.tail1a2b3.ts.net`: the eleventh attack
/// pass; a VPN's or a company's names are no list's): three labels or more of letters, digits
/// and dashes, the last a word of letters (`M.2`, `E.V.O`, `v1.2.3` and a kernel's
/// `6.1.0-21-arm64` are none).
fn host_name(name: &str) -> bool {
    let labels: Vec<&str> = name.split('.').collect();
    let label = |l: &&str| {
        (1..=63).contains(&l.len())
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    let last = labels.last().copied().unwrap_or_default();
    labels.len() >= 3
        && labels.iter().all(label)
        && last.len() >= 2
        && last.bytes().all(|b| b.is_ascii_lowercase())
        && labels.iter().any(|l| l.len() >= 3)
}

/// A serial number glued to what says it is one (`s/n:2049E4A1B2C3`, `SN#…`, `serial=…`,
/// `SerialNumber:…`: the ninth attack pass; `SerialNo:…`, `Seriennummer=…`: the tenth);
/// `SN770M`, a model, has no mark between.
pub(super) fn tagged_serial(lower: &str) -> bool {
    lower.find([':', '#', '=']).is_some_and(|at| {
        let value = &lower[at + 1..];
        let digits = value.contains(|c: char| c.is_ascii_digit());
        serial_tag(&lower[..at]) && (value.len() >= 6 || (value.len() >= 4 && digits))
    })
}

/// Whether a word says a serial number follows: `serial` and any word it begins (`SerialNo`,
/// `serial-number`), German's and Dutch's `Seriennummer`, `Ser.-Nr.`, `serienummer`, French's
/// `série`, `s/n`, `sn`, `ser`, a product's `PSN`.
pub(super) fn serial_tag(lower: &str) -> bool {
    // Its letters alone: `s/n`, `S.N.`, `Ser.-Nr.` (the eleventh attack pass) are `sn`,
    // `sernr`.
    let word: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
    word.starts_with("serial")
        || word.starts_with("serien")
        || ["série", "sn", "ser", "snr", "sno", "sernr", "serno", "psn"].contains(&word.as_str())
}

/// Whether a word after a serial's tag says a number follows (`serial number …`, `Serial No.
/// …`, `Serien-Nr …`).
pub(super) fn number_word(lower: &str) -> bool {
    // Its letters alone: a sign between (`S/N - …`, `SN — …`, `Serial # …`) goes on too.
    let word: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
    ["number", "no", "nr", "num", "nummer", "n", ""].contains(&word.as_str())
}
