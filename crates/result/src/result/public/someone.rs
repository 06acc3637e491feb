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
    // A host after it may be an address in brackets (`alice@[192.0.2.5]`: the thirteenth
    // attack pass).
    let at = folded.char_indices().any(|(at, c)| {
        c == '@'
            && folded[..at].ends_with(char::is_alphanumeric)
            && folded[at + 1..].starts_with(|c: char| c.is_alphanumeric() || c == '[')
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
    at || spelt
        || local
        || host_name(name)
        || machine_address(lower)
        || windows_host(name)
        || owners_host(name)
}

/// The words of a machine's name its owner's name goes with (`Alices-MacBook-Pro`, `iPhone de
/// …`, `alice-ThinkPad-T480`): one list for names in one word and in several.
#[rustfmt::skip]
const MACHINES: [&str; 31] = [
    "macbook", "imac", "mac", "mbp", "mba", "laptop", "desktop", "pc", "notebook", "computer",
    "virtualbox", "vm", "thinkpad", "latitude", "inspiron", "xps", "precision", "vostro",
    "pavilion", "elitebook", "probook", "zenbook", "vivobook", "ideapad", "legion", "surface",
    "iphone", "ipad", "galaxy", "raspberry", "pixel",
];

/// Words that join a machine's word and its owner's name in other languages' default names
/// (`MacBook-Pro-de-…`, `iPad-von-…`, `…-no-MacBook`).
const OF: [&str; 10] = [
    "de", "von", "di", "van", "do", "da", "du", "för", "af", "no",
];

/// A machine's name as macOS and Linux installers make it, from its owner's name and the
/// machine's (`Alices-MacBook-Pro`: the seventeenth attack pass; `alice-ThinkPad-T480`,
/// `bob-laptop`, `carol-VirtualBox`): a word of letters, then, after a dash, a machine's word.
/// Not one whose first word names no one (`desktop-class`, `mini-pc`, `usb-c`).
fn owners_host(name: &str) -> bool {
    // Or as other languages make it: `MacBook-Pro-de-Zorrokid`, `iPad-von-…`, `…-no-MacBook`,
    // `Zorrokid的MacBook` (the nineteenth attack pass).
    let parts: Vec<&str> = name.split('-').collect();
    let named = |w: &str| w.len() >= 2 && w.chars().all(char::is_alphabetic);
    let around = parts.windows(3).any(|w| {
        OF.contains(&w[1])
            && ((MACHINES.iter().any(|m| w[0].starts_with(m)) && named(w[2]))
                || (named(w[0]) && MACHINES.iter().any(|m| w[2].starts_with(m))))
    }) || (parts.iter().any(|p| MACHINES.contains(p))
        && parts.windows(2).any(|w| OF.contains(&w[0]) && named(w[1]))
        && parts
            .last()
            .is_some_and(|p| named(p) && !MACHINES.contains(p)));
    let chinese = name.split_once('的').is_some_and(|(owner, machine)| {
        !owner.is_empty() && MACHINES.iter().any(|m| machine.starts_with(m))
    });
    if around || chinese {
        return true;
    }
    const NO_ONE: [&str; 12] = [
        "mini", "gaming", "home", "office", "work", "my", "the", "old", "new", "usb", "non",
        "desktop",
    ];
    let machine = parts.get(1).is_some_and(|m| MACHINES.contains(m));
    // `Alice’s-MacBook-Pro` as `Alices-…` (the eighteenth).
    let owner = parts[0]
        .strip_suffix("'s")
        .or_else(|| parts[0].strip_suffix("’s"))
        .unwrap_or(parts[0]);
    machine
        && owner.len() >= 2
        && owner.chars().all(|c| c.is_alphabetic())
        && !NO_ONE.contains(&owner)
}

/// A Windows machine's name as it is made by default: `DESKTOP-`, `LAPTOP-` or `WIN-` and
/// seven to eleven letters and digits (`DESKTOP-7H3K2LQ`: the sixteenth attack pass).
fn windows_host(name: &str) -> bool {
    ["desktop-", "laptop-", "win-"].iter().any(|p| {
        name.strip_prefix(p).is_some_and(|rest| {
            (7..=11).contains(&rest.len())
                && rest.chars().all(|c| c.is_ascii_alphanumeric())
                && rest.contains(|c: char| c.is_ascii_digit())
        })
    })
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
/// `SerialNumber:…`: the ninth attack pass; `SerialNo:…`, `Seriennummer=…`: the tenth; `SN-…`:
/// the twelfth); `SN770M`, a model, has no mark between, and `SN-850X` is too short a serial
/// after a dash.
pub(super) fn tagged_serial(lower: &str) -> bool {
    udev_id(lower) || tagged_serial_only(lower)
}

/// A disk's id as udev names it, without its `/dev/disk/` folder: a bus, the model and the
/// serial joined by `_` (`ata-Samsung_SSD_870_EVO_1TB_S6PU…`, `usb-SanDisk_Ultra_…-0:0`,
/// `mmc-SN64G_0x1234abcd`), a WWN or an EUI (`wwn-0x5002…`, `nvme-eui.0025…`), or a folder of
/// `/dev/disk/` and what is in it (`by-label/THEODORA_USB`): the sixteenth attack pass
/// published each from a label.
fn udev_id(lower: &str) -> bool {
    let word = lower.trim_start_matches(|c: char| !c.is_alphanumeric());
    let joined = [
        "ata-",
        "scsi-",
        "usb-",
        "mmc-",
        "nvme-",
        "ieee1394-",
        "memstick-",
    ]
    .iter()
    .any(|bus| {
        word.strip_prefix(bus)
            .is_some_and(|rest| rest.contains('_'))
    });
    let named = [
        "wwn-0x",
        "nvme-eui.",
        "nvme-nvme.",
        "by-id/",
        "by-label/",
        "by-partlabel/",
    ]
    .iter()
    .any(|tag| word.strip_prefix(tag).is_some_and(|rest| rest.len() >= 4));
    joined || named
}

/// [`tagged_serial`] less udev's ids.
fn tagged_serial_only(lower: &str) -> bool {
    let marked = lower.find([':', '#', '=']).is_some_and(|at| {
        let value = &lower[at + 1..];
        let digits = value.contains(|c: char| c.is_ascii_digit());
        serial_tag(&lower[..at]) && (value.len() >= 6 || (value.len() >= 4 && digits))
    });
    // After a dash or an underscore, six or more with a digit, or eight letters.
    let dashed = lower.find(['-', '_']).is_some_and(|at| {
        let value = &lower[at + 1..];
        let digits = value.contains(|c: char| c.is_ascii_digit());
        serial_tag(&lower[..at]) && ((value.len() >= 6 && digits) || value.len() >= 8)
    });
    // A WD disk's serial, which says whose it is by itself (`WD-WCC4N7KL1234`: the
    // seventeenth attack pass): `WD-` and eight letters and figures or more, both in it.
    let wd = lower
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .strip_prefix("wd-")
        .map(|v| v.trim_end_matches(|c: char| !c.is_alphanumeric()))
        .is_some_and(|v| {
            v.len() >= 8
                && v.chars().all(|c| c.is_ascii_alphanumeric())
                && v.contains(|c: char| c.is_ascii_digit())
                && v.contains(|c: char| c.is_ascii_alphabetic())
        });
    // And a Samsung drive's, which has a shape of its own (`S4EWNX0R123456A`: fourteen or
    // fifteen letters and figures, an `S` first, an `N` fifth and a zero seventh; the
    // eighteenth).
    let c: Vec<char> = lower
        .trim_matches(|c: char| !c.is_alphanumeric())
        .chars()
        .collect();
    let samsung = (14..=15).contains(&c.len())
        && (c[0], c[4], c[6]) == ('s', 'n', '0')
        && c.iter().all(|c| c.is_ascii_alphanumeric())
        && c.iter().filter(|c| c.is_ascii_digit()).count() >= 4;
    marked || dashed || wd || samsung
}

/// A disk's own label or id as the system writes it (`LABEL=ALICE_USB`, `PARTLABEL=…`,
/// `UUID=…`: the twelfth attack pass; a mount option's `x-gvfs-name=…`: the thirteenth), a
/// label its owner chose.
pub(super) fn tagged_label(lower: &str) -> bool {
    lower.split_once('=').is_some_and(|(tag, value)| {
        let tag = tag.trim_start_matches(|c: char| !c.is_alphanumeric());
        ["label", "partlabel", "uuid", "partuuid", "x-gvfs-name"].contains(&tag)
            && !value.is_empty()
    })
}

/// Whether a word says a serial number follows: `serial` and any word it begins (`SerialNo`,
/// `serial-number`), German's and Dutch's `Seriennummer`, `Ser.-Nr.`, `serienummer`, French's
/// `série`, `s/n`, `sn`, `ser`, a product's `PSN`; Japanese's `シリアル番号`, Chinese's `序列号`,
/// Korean's `일련번호`, Russian's `серийный` (the twelfth attack pass); Ukrainian's, Polish's,
/// Czech's, Greek's, Turkish's and Vietnamese's, `с/н`, a phone's `IMEI`, a `UUID:` (the
/// thirteenth); and Spanish's and Italian's `serie` after `de` or `di` (`número de serie`),
/// `before` the word before it.
pub(super) fn serial_tag_after(lower: &str, before: Option<&str>) -> bool {
    let word: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
    serial_tag(lower)
        || (word == "serie" && before.is_some_and(|b| ["de", "di"].contains(&b)))
        || [
            "シリアル",
            "序列号",
            "序列號",
            "序号",
            "序號",
            "製造番号",
            "製造番號",
            "일련번호",
            "시리얼",
            "серийн",
            "серійн",
            "seryjn",
            "sériov",
            "seriov",
            "σειριακ",
            "sarjanum",
        ]
        .iter()
        .any(|tag| word.starts_with(tag))
        || ["сн", "imei", "meid", "iccid", "imsi", "uuid", "partuuid"].contains(&word.as_str())
        // Words that alone say "series" (`Seri 9`), a serial's tag only after or before
        // their word for number: `seri numarası`, `số sê-ri`.
        || (["numarası", "numarasi"].contains(&word.as_str()) && before == Some("seri"))
        || (word == "sêri" && before == Some("số"))
}

/// Whether a word says a serial number follows, alone (see [`serial_tag_after`]).
pub(super) fn serial_tag(lower: &str) -> bool {
    // Its letters alone: `s/n`, `S.N.`, `Ser.-Nr.` (the eleventh attack pass) are `sn`,
    // `sernr`.
    let word: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
    word.starts_with("serial")
        || word.starts_with("serien")
        || ["série", "sn", "ser", "snr", "sno", "sernr", "serno", "psn"].contains(&word.as_str())
        // udev's `ID_SERIAL=`, `ID_SERIAL_SHORT=`, `ID_WWN=` (the sixteenth attack pass).
        || word.starts_with("idserial")
        || word.starts_with("idwwn")
}

/// Whether a word after a serial's tag says a number follows (`serial number …`, `Serial No.
/// …`, `Serien-Nr …`, `番号`, `номер`).
pub(super) fn number_word(lower: &str) -> bool {
    // Its letters alone: a sign between (`S/N - …`, `SN — …`, `Serial # …`) goes on too.
    let word: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
    [
        "number",
        "no",
        "nr",
        "num",
        "nummer",
        "n",
        "",
        "番号",
        "номер",
        "번호",
        "numarası",
        "numarasi",
        "číslo",
        "cislo",
        "αριθμός",
        "αριθμος",
    ]
    .contains(&word.as_str())
}

/// Whether word `i` of `words` (lower case) is an owner's name before their machine's
/// (`Alice’s MacBook Pro`, macOS's default computer name: the eighteenth attack pass).
pub(super) fn owner_at(words: &[String], i: usize) -> bool {
    let bare = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string();
    let word = words
        .get(i)
        .map(|w| w.trim_end_matches([',', '.', ';', ':']));
    let possessive = word.is_some_and(|w| w.len() > 3 && (w.ends_with("'s") || w.ends_with("’s")));
    let machine = words
        .get(i + 1)
        .is_some_and(|w| MACHINES.contains(&bare(w).as_str()));
    // `iPhone de Zorrokid`, `MacBook Pro von Zorrokid`, `Zorrokid no MacBook` (the
    // nineteenth).
    let is_machine = |j: usize| {
        words
            .get(j)
            .is_some_and(|w| MACHINES.contains(&bare(w).as_str()))
    };
    let owner = word.is_some_and(|w| w.len() >= 2 && w.chars().all(char::is_alphabetic));
    let after = i >= 2
        && OF.contains(&bare(&words[i - 1]).as_str())
        && (is_machine(i - 2) || (i >= 3 && is_machine(i - 3)));
    let before = words.get(i + 1).is_some_and(|w| bare(w) == "no") && is_machine(i + 2);
    (possessive && machine) || (owner && (after || before))
}

/// Whether word `i` of `words` (lower case) spells an address's `@` or `.` out between a name
/// and its host: `alice (at) example (dot) com` (the ninth attack pass), `alice @ example.com`
/// (the twelfth); bare `at` and `dot` only in that order, a word between (`alice at example
/// dot com`).
pub(super) fn spelt_at(words: &[String], i: usize) -> bool {
    let word = |i: usize| words.get(i).map(String::as_str);
    // A sign alone before a host's name (`1 @ 2 GB/s` is none).
    let host = |w: &str| {
        let w = w.trim_end_matches(|c: char| ".,;:)]}'\"".contains(c));
        w.rsplit_once('.').is_some_and(|(name, end)| {
            !name.is_empty() && end.len() >= 2 && end.chars().all(char::is_alphabetic)
        })
    };
    let sign = word(i).is_some_and(|w| ["@", "＠", "(@)", "[@]"].contains(&w))
        && i > 0
        && word(i + 1).is_some_and(host);
    sign || word(i).is_some_and(|w| ["(at)", "[at]", "(dot)", "[dot]"].contains(&w))
        || (word(i) == Some("at") && word(i + 2) == Some("dot") && i > 0)
        || (word(i) == Some("dot") && i >= 2 && word(i - 2) == Some("at") && i > 2)
}

/// Whether a word holds a machine's own address: a network card's (`a8:bb:cc:dd:ee:f1`,
/// `a8-bb-…`, `a8bb.ccdd.eef1`) or an IPv6 address (`fe80::a8bb:ccff:fedd:eeff`, whose last
/// half is often the card's, and any other names one machine): the fourteenth attack pass
/// published both from a label.
fn machine_address(lower: &str) -> bool {
    runs(lower, |c| c.is_ascii_hexdigit() || ":-.".contains(c)).any(|run| {
        let hex = |g: &str, n: usize| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit());
        let card = [':', '-'].iter().any(|sep| {
            let groups: Vec<&str> = run.split(*sep).collect();
            groups.len() == 6 && groups.iter().all(|g| hex(g, 2))
        }) || {
            let groups: Vec<&str> = run.split('.').collect();
            groups.len() == 3 && groups.iter().all(|g| hex(g, 4))
        };
        // Three colons or more, or a `::`, between groups of one to four hex digits, with a
        // letter or a `::` among them (`12:30:45` is a time).
        let groups: Vec<&str> = run.split(':').collect();
        let v6 = (groups.len() >= 4 || (groups.len() >= 3 && run.contains("::")))
            && groups
                .iter()
                .all(|g| g.len() <= 4 && g.chars().all(|c| c.is_ascii_hexdigit()))
            && (run.contains("::") || run.contains(|c: char| c.is_ascii_alphabetic()))
            && groups.iter().filter(|g| !g.is_empty()).count() >= 2;
        // An IPv4 address on the internet, alone, with a port or in an IPv6 one
        // (`::ffff:81.2.69.161`): a home's (the fifteenth attack pass published both); a
        // private one, or one whose first figure is under ten (`1.2.3.4`, `4.19.128.1`: a
        // version's), is no one's.
        // Its figures padded with zeros too (`081.002.069.163`: the sixteenth).
        let unpadded = |piece: &str| -> String {
            let parts: Vec<&str> = piece
                .split('.')
                .map(|o| o.trim_start_matches('0'))
                .collect();
            let parts: Vec<&str> = parts
                .iter()
                .map(|o| if o.is_empty() { "0" } else { o })
                .collect();
            parts.join(".")
        };
        let v4 = run.split(':').any(|piece| {
            unpadded(piece)
                .parse::<std::net::Ipv4Addr>()
                .is_ok_and(|ip| {
                    !(ip.is_private()
                        || ip.is_loopback()
                        || ip.is_link_local()
                        || ip.is_unspecified())
                        && ip.octets()[0] >= 10
                })
        });
        // (A card's address without separators, twelve hex digits, is `volume_id`'s.)
        card || v6 || v4
    })
}

/// Whether a word holds a filesystem's own id: a UUID (`6a2c1b9e-0f3d-4e5a-9b7c-1d2e3f4a5b6c`,
/// also after `by-uuid/`) or a FAT or exFAT volume's (`1A2B-3C4D`, a hex letter in it: a year's
/// `2019-2020` is none). The fourteenth attack pass published both from a label. And, a word
/// of its own, an NTFS volume's serial (16 hex figures), a network card's address written
/// without separators (12; both with a letter and a figure) and a ZFS pool's GUID (17 to 20
/// figures): the sixteenth. (Only texts are read so, never a document's id: `each_text`.)
pub(super) fn volume_id(lower: &str) -> bool {
    let own_word = runs(lower, |c| c.is_ascii_alphanumeric()).any(|run| {
        let run = run.strip_prefix("0x").unwrap_or(run);
        let letter = run.contains(|c: char| c.is_ascii_alphabetic());
        let digit = run.contains(|c: char| c.is_ascii_digit());
        let hex = run.chars().all(|c| c.is_ascii_hexdigit());
        (hex && letter && digit && matches!(run.len(), 12 | 16))
            || (!letter && (17..=20).contains(&run.len()))
    });
    // An LVM volume's UUID (`Xq3Z1t-aBcD-…-uVwXyZ`, letters and figures in 6-4-4-4-4-4-6) and an
    // md array's (four runs of 8 hex figures with colons): the seventeenth.
    let lvm = runs(lower, |c| c.is_ascii_alphanumeric() || c == '-').any(|run| {
        let lengths: Vec<usize> = run.split('-').map(str::len).collect();
        lengths == [6, 4, 4, 4, 4, 4, 6]
    });
    let md = runs(lower, |c| c.is_ascii_hexdigit() || c == ':').any(|run| {
        let lengths: Vec<usize> = run.split(':').map(str::len).collect();
        lengths == [8, 8, 8, 8]
    });
    own_word
        || lvm
        || md
        || runs(lower, |c| c.is_ascii_hexdigit() || c == '-').any(|run| {
            let lengths: Vec<usize> = run.split('-').map(str::len).collect();
            let letter = run.contains(|c: char| c.is_ascii_alphabetic());
            let digit = run.contains(|c: char| c.is_ascii_digit());
            // Also written without its dashes (32 hex digits), and an MBR disk's id with its
            // partition's number (`PARTUUID=4f2e91ab-02`): the fifteenth attack pass.
            lengths == [8, 4, 4, 4, 12]
                || (lengths == [4, 4] && letter)
                || (lengths == [32] && letter && digit)
                || (lengths == [8, 2] && letter)
        })
}

/// The longest runs of `lower`'s characters that `keep` keeps.
fn runs(lower: &str, keep: impl Fn(char) -> bool + Copy) -> impl Iterator<Item = &str> {
    lower
        .split(move |c: char| !keep(c))
        .map(|run| run.trim_matches(|c: char| ":-.".contains(c)))
        .filter(|run| !run.is_empty())
}

#[cfg(test)]
mod tests;
