//! Product lines and model numbers that say what a drive is, whatever the document says of
//! its bus or rotation: the lines of SSDs sold only with SATA, and of disks sold only
//! spinning. `model` is lower case throughout.

/// Whether `model` names an SSD sold only with a SATA interface (2.5", mSATA or M.2 SATA), so
/// that no figure of it passes SATA III's 600 MB/s on any bus (the sixteenth attack pass ranked
/// `Samsung MZ-77E1T0`, `CT2000MX500SSD1` and `WDC WDS100T2B0A` sent as NVMe or USB at up to
/// 1,940 MB/s, first of the board). Lines and part numbers from the makers' datasheets:
/// Samsung's 830-870 (part numbers `MZ-7…`, M.2 `MZ-N…`; NVMe drives are `MZ-V…`),
/// Crucial's MX and BX (`CT…MX500SSD1`), Kingston's A400, UV400/500 and KC600, WD's
/// SATA Blue, Green and Red (`WDS…G2B0A`/`B0B`, `G0A`, `R0A`; NVMe ones end `C` or `E`),
/// SanDisk's SSD Plus (`SDSSDA…`), Intel's `SSDSC2…`/`SSDSCK…`.
pub(in crate::result) fn sata_only(model: &str) -> bool {
    let words: Vec<&str> = model
        .split(|c: char| c.is_whitespace() || c == '_')
        .filter(|w| !w.is_empty())
        .collect();
    let samsung = model.contains("samsung");
    words.iter().any(|word| {
        let bare: String = word.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        let wd = bare.strip_prefix("wds").is_some_and(|rest| {
            // Capacity figures, `g` or `t`, a generation figure, then `b0a`-like.
            let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
            let mut tail = rest.chars().skip(1);
            tail.next().is_some_and(|c| c.is_ascii_digit())
                && matches!(tail.next(), Some('b' | 'g' | 'r'))
                && tail.next() == Some('0')
                && matches!(tail.next(), Some('a' | 'b'))
        });
        let crucial = [
            "mx100", "mx200", "mx300", "mx500", "bx100", "bx200", "bx500",
        ]
        .iter()
        .any(|line| bare.contains(line));
        let coded = ["mz7", "mzn", "sa400", "suv400", "suv500", "sedc", "skc600"]
            .iter()
            .chain(&["sdssda", "ssdsc2", "ssdsck"])
            .any(|prefix| bare.starts_with(prefix));
        let line = ["a400", "kc600", "uv400", "uv500"].contains(&bare.as_str());
        let samsung_sata = samsung && ["830", "840", "850", "860", "870"].contains(&bare.as_str());
        wd || crucial || coded || line || samsung_sata
    })
}

/// Whether `model` names a hard disk by a line sold only spinning (`Seagate IronWolf 8TB`,
/// `WD Red Plus`, `Toshiba N300`: the sixteenth attack pass ranked each, sent as not
/// rotating, at 33,000 random reads a second), and no word of it names one of the line's SSDs
/// (`IronWolf 525`, `BarraCuda Q5`, `Red SA500`, a word with `ssd` or `nvme`).
pub(in crate::result) fn disk_line(model: &str) -> bool {
    let words: Vec<&str> = model
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &str| words.contains(&w);
    let after = |a: &str, b: &[&str]| {
        words
            .windows(2)
            .any(|pair| pair[0] == a && b.contains(&pair[1]))
    };
    // Lines with no SSD at all (Seagate's SSDs are Nytro; Toshiba's disks are its N, X, P
    // and S300), and lines with SSDs of their own (the next test).
    // And WD's and HGST's desktop and NAS disks, an Ultrastar's `HC` (its SSDs are `SN`, `SS`),
    // a Seagate hub's (the nineteenth attack pass ranked each as flash).
    let only = [
        "exos",
        "skyhawk",
        "n300",
        "x300",
        "p300",
        "s300",
        "deskstar",
        "travelstar",
    ]
    .iter()
    .any(|w| has(w))
        || after("my", &["book"])
        || after("touch", &["hub"])
        || (has("ultrastar") && words.iter().any(|w| w.starts_with("hc")));
    let line = ["ironwolf", "barracuda"].iter().any(|w| has(w))
        || after("red", &["plus", "pro"])
        || (has("wd") || has("western")) && has("purple");
    let ssd = words.iter().any(|w| {
        w.contains("ssd")
            || w.contains("nvme")
            || w.contains("flash")
            // A model number of three figures (`IronWolf 525`, `BarraCuda 510`) or of letters
            // and figures (`Q5`, `SA500`, `SN700`).
            || (w.len() == 3 && w.chars().all(|c| c.is_ascii_digit()))
            || (w.starts_with(|c: char| c.is_ascii_alphabetic())
                && w.contains(|c: char| c.is_ascii_digit())
                && !w.ends_with("tb")
                && !w.ends_with("gb"))
    });
    only || (line && !ssd)
}

/// Whether the model's number, after any maker's word, is a disk's whoever is said to make
/// it (the seventeenth attack pass ranked `SEAGATE ST600MM0009`, a 10,000 rpm disk, at an SSD's
/// figures): Seagate's `ST` and `STM` then figures, WD's `WD` then figures (its SSDs are
/// `WDS…`), HGST's and Hitachi's `HU`, `HD` or `HT`, a letter, then figures (`HUC101818…`,
/// `HDS723020…`, `HTS541010…`; their SSDs are `HUSM…`, `HUSS…`), Toshiba's `HDW` and a letter.
pub(super) fn disk_word(model: &str) -> bool {
    const MAKERS: [&str; 10] = [
        "seagate", "wdc", "wd", "western", "digital", "hgst", "hitachi", "toshiba", "maxtor", "ata",
    ];
    let Some(word) = model
        .split(|c: char| c.is_whitespace() || c == '_')
        .find(|w| !w.is_empty() && !MAKERS.contains(w))
    else {
        return false;
    };
    let c: Vec<char> = word.chars().take(4).collect();
    let digit = |i: usize| c.get(i).is_some_and(|c| c.is_ascii_digit());
    let letter = |i: usize| c.get(i).is_some_and(|c| c.is_ascii_lowercase());
    let starts = |p: &str| word.starts_with(p);
    (starts("st") && (digit(2) || (c.get(2) == Some(&'m') && digit(3))))
        || (starts("wd") && digit(2))
        || ((starts("hu") || starts("hd") || starts("ht")) && letter(2) && digit(3))
        || (starts("hdw") && letter(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sata_only_lines_by_name_and_part_number() {
        for model in [
            "Samsung MZ-77E1T0",
            "Samsung SSD 870 EVO 1TB",
            "Samsung SSD 860 QVO 1TB",
            "Samsung MZ-N6E500",
            "CT2000MX500SSD1",
            "Crucial BX500 480GB",
            "WDC WDS100T2B0A-00SM50",
            "WDC WDS500G2B0B",
            "WDC WDS480G2G0A",
            "WDC WDS500G1R0A",
            "KINGSTON SA400S37240G",
            "Kingston A400 480GB",
            "KINGSTON SKC600512G",
            "SanDisk SDSSDA-240G",
            "INTEL SSDSC2KW512G8",
        ] {
            assert!(sata_only(&model.to_lowercase()), "{model}");
        }
        for model in [
            "Samsung SSD 970 EVO Plus 1TB",
            "Samsung SSD 980 PRO 1TB",
            "Samsung MZ-V8P1T0BW",
            "WDC WDS500G2B0C-00PXH0",
            "WDC WDS100T3X0C",
            "WD Blue SN570 1TB",
            "Crucial P3 Plus 2TB",
            "CT1000P3PSSD8",
            "KINGSTON SNV2S1000G",
            "INTEL SSDPEKNW010T8",
            "Samsung Portable SSD T7",
            "ST4000DM004-2CV104",
        ] {
            assert!(!sata_only(&model.to_lowercase()), "{model}");
        }
    }

    #[test]
    fn lines_sold_only_spinning() {
        for model in [
            "Seagate IronWolf 8TB",
            "ST IronWolf Pro 16TB",
            "WD Red Plus 8TB",
            "WD Red Pro 20TB",
            "Toshiba N300 8TB",
            "Seagate Exos X18",
            "Seagate BarraCuda 2TB",
            "WD Purple 4TB",
            "Seagate SkyHawk 4TB",
            "WD My Book 8TB",
            "Seagate One Touch Hub 8TB",
            "HGST Deskstar NAS 4TB",
            "WD Ultrastar DC HC550 16TB",
        ] {
            assert!(disk_line(&model.to_lowercase()), "{model}");
        }
        for model in [
            "Seagate IronWolf 525 1TB",
            "Seagate IronWolf 125 SSD 1TB",
            "Seagate BarraCuda Q5 1TB",
            "Seagate BarraCuda 510 SSD",
            "WD Red SA500 1TB",
            "WD Red SN700 1TB",
            "WD Red 4TB",
            "Seagate FireCuda 530 2TB",
            "Samsung SSD 870 EVO 1TB",
            "WD Ultrastar DC SN640 1.92TB",
            "Seagate One Touch SSD 1TB",
        ] {
            assert!(!disk_line(&model.to_lowercase()), "{model}");
        }
    }

    /// The documents of the sixteenth attack pass: a SATA-only SSD sent as NVMe at 2,000 MB/s,
    /// and disks named by their lines sent as not rotating at SSDs' random reads.
    #[test]
    fn a_sata_ssd_sent_as_nvme_and_a_disk_line_sent_as_flash_are_flagged() {
        use crate::result::{reason::Reason, sample, Transport};
        let of = |model: &str, transport: Transport| {
            let mut doc = sample::ssd_doc();
            let device = doc.target.device.as_mut().unwrap();
            (device.vendor, device.model) = (None, Some(model.to_string()));
            (device.transport, device.rotational) = (Some(transport), Some(false));
            doc
        };
        let flag = of("Samsung MZ-77E1T0", Transport::Nvme).beyond_physics();
        assert!(
            matches!(flag, Some(Reason::BeyondLink { ceiling, .. }) if ceiling == 600.0),
            "{flag:?}"
        );
        assert_eq!(
            of("Samsung MZ-V8P1T0BW", Transport::Nvme).beyond_physics(),
            None
        );
        for (model, transport) in [
            ("Seagate IronWolf 8TB", Transport::Sata),
            ("Toshiba N300 8TB", Transport::Nvme),
            ("WDC WUH721816ALE6L4", Transport::Sata),
            ("MAXTOR STM3500418AS", Transport::Sata),
            // The seventeenth: enterprise disks' numbers, and a bus iomark never writes.
            ("SEAGATE ST600MM0009", Transport::Scsi),
            ("HGST HUC101818CS4204", Transport::Scsi),
            ("TOSHIBA AL15SEB18EQ", Transport::Scsi),
            ("WDC WD1000CHTZ-04JCPV1", Transport::of("sas")),
            ("WDC WD40EFRX-68N32N0", Transport::of("sas")),
        ] {
            let mut doc = of(model, transport);
            for test in doc.tests.iter_mut().filter(|t| t.mb_per_s > 500.0) {
                test.mb_per_s = 250.0;
            }
            let flag = doc.beyond_physics();
            assert!(
                matches!(flag, Some(Reason::BeyondPlatters { .. })),
                "{model}: {flag:?}"
            );
        }
        // The eighteenth: a card sent over a bus iomark never writes is a card.
        let mut card = of("SanDisk Extreme microSDXC A2", Transport::of("sd"));
        card.target.device.as_mut().unwrap().name = Some("mmcblk0".into());
        assert_eq!(card.target.device.as_ref().unwrap().kind(), "microSD");
        let flag = card.beyond_physics();
        assert!(matches!(flag, Some(Reason::BeyondLink { .. })), "{flag:?}");
        // A 5,400 rpm disk streams no 345 MB/s; 190 it may.
        for (mb, flagged) in [(345.0, true), (190.0, false)] {
            let mut doc = of("ST4000DM004-2CV104", Transport::Sata);
            doc.target.device.as_mut().unwrap().rotation_rpm = Some(5400);
            for test in doc.tests.iter_mut() {
                test.mb_per_s = test.mb_per_s.min(mb);
                if test.kind == "rand" {
                    (test.iops, test.mb_per_s) = (100.0, 0.4);
                }
            }
            let flag = doc.beyond_physics();
            let beyond =
                matches!(&flag, Some(Reason::BeyondLink { ceiling, .. }) if *ceiling == 255.0);
            assert_eq!(beyond, flagged, "{mb}: {flag:?}");
            assert_eq!(flag.is_some(), flagged, "{mb}: {flag:?}");
        }
    }

    #[test]
    fn a_disk_s_number_after_any_maker_s_word_and_no_ssd_s() {
        use crate::result::drive::disk_number;
        for model in [
            "seagate st600mm0009",
            "ata st4000dm004",
            "hgst huc101818cs4204",
            "hitachi hts541010a9e680",
            "toshiba hdwd110",
            "wd wd40efrx",
            "maxtor stm3500418as",
        ] {
            assert!(disk_number(model), "{model}");
        }
        for model in [
            "wdc wds100t2b0a",
            "hgst husmm1640ass204",
            "samsung ssd 980 pro",
            "seagate zp2000gm3a013",
            "kingston sa400s37240g",
            "intel ssdpekkw512g8",
            "qemu harddisk",
            "st",
            "wd blue sn570",
        ] {
            assert!(!disk_number(model), "{model}");
        }
    }
}
