//! Drives whose own name is a part number, named as they are sold: an NVMe or SATA drive of
//! Crucial's, Kingston's or SK hynix's names itself by its part number (`CT2000P3PSSD8`,
//! `KINGSTON SNV2S1000G`, `SHPP41-2000GM`), which no buyer searches for, and which the
//! seventeenth attack pass ranked as a device of its own beside `Crucial P3 Plus 2TB`. Part
//! numbers as the makers' datasheets spell them out.

/// Kingston's and SK hynix's part numbers' stems, and the product each is sold as.
const STEMS: [(&str, &str, &str); 14] = [
    ("skc3000s", "Kingston", "KC3000"),
    ("skc3000d", "Kingston", "KC3000"),
    ("snv3sd", "Kingston", "NV3"),
    ("snv3s", "Kingston", "NV3"),
    ("snv2s", "Kingston", "NV2"),
    ("snvs", "Kingston", "NV1"),
    ("sa2000m8", "Kingston", "A2000"),
    ("skc2500m8", "Kingston", "KC2500"),
    ("sa400s37", "Kingston", "A400"),
    ("skc600", "Kingston", "KC600"),
    ("sfyrs", "Kingston", "FURY Renegade"),
    ("shpp41", "SK hynix", "Platinum P41"),
    ("shgp31", "SK hynix", "Gold P31"),
    ("shgs31", "SK hynix", "Gold S31"),
];

/// Words a part number may follow in a drive's name: its maker's, or a bus's.
const BEFORE: [&str; 6] = ["crucial", "micron", "kingston", "sk", "hynix", "ata"];

/// `name` as its maker sells it (`Crucial P3 Plus` for `CT2000P3PSSD8`), where it is a part
/// number this knows, after nothing but its maker's words; its capacity is said apart.
pub(in crate::result) fn marketed(name: &str) -> Option<String> {
    let lower = name.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let (part, before) = words.split_last()?;
    if !before.iter().all(|w| BEFORE.contains(w)) {
        return None;
    }
    crucial(part).or_else(|| {
        let (stem, maker, product) = STEMS.iter().find(|(stem, ..)| part.starts_with(stem))?;
        // Then its capacity, or nothing (`SA400S37` once its `240G` is said apart).
        let rest = part[stem.len()..].trim_start_matches(['/', '-']);
        let digits = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        let capacity =
            rest.is_empty() || (digits.len() < rest.len() && ["g", "gm"].contains(&digits));
        capacity.then(|| format!("{maker} {product}"))
    })
}

/// Crucial's part numbers: `CT`, the capacity in GB, the line (`P3P`, `MX500`, `T700`), `SSD`
/// and the form's figure (`CT2000P3PSSD8`, `CT1000MX500SSD1`); a `P` after a line's number is
/// its Plus.
fn crucial(part: &str) -> Option<String> {
    let rest = part.strip_prefix("ct")?;
    let line = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    if line.len() == rest.len() {
        return None;
    }
    let (line, form) = line.rsplit_once("ssd")?;
    let form_ok = form.len() == 1 && form.chars().all(|c| c.is_ascii_digit());
    let line_ok = (2..=5).contains(&line.len())
        && line.starts_with(|c: char| c.is_ascii_alphabetic())
        && line.chars().all(|c| c.is_ascii_alphanumeric());
    if !form_ok || !line_ok {
        return None;
    }
    let upper = line.to_ascii_uppercase();
    let named = match upper.strip_suffix('P') {
        Some(number) if number.starts_with('P') && number.len() >= 2 => format!("{number} Plus"),
        _ => upper,
    };
    Some(format!("Crucial {named}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_numbers_are_named_as_sold() {
        for (name, sold) in [
            ("CT2000P3PSSD8", "Crucial P3 Plus"),
            ("Crucial CT1000P5PSSD8", "Crucial P5 Plus"),
            ("CT1000MX500SSD1", "Crucial MX500"),
            ("ATA CT500BX500SSD1", "Crucial BX500"),
            ("CT4000T700SSD3", "Crucial T700"),
            ("CT1000P3SSD8", "Crucial P3"),
            ("KINGSTON SKC3000S1024G", "Kingston KC3000"),
            ("KINGSTON SKC3000S/1024G", "Kingston KC3000"),
            ("KINGSTON SNV2S1000G", "Kingston NV2"),
            ("KINGSTON SA400S37", "Kingston A400"),
            ("SHPP41-2000GM", "SK hynix Platinum P41"),
        ] {
            assert_eq!(marketed(name).as_deref(), Some(sold), "{name}");
        }
        for name in [
            "Crucial P3 Plus",
            "Samsung SSD 980 PRO",
            "CT2000P3PSSD8 rev 2",
            "WDC CT2000P3PSSD8",
            "CTX",
            "CT1000",
            "KINGSTON SNV2S1000GX",
            "Kingston DataTraveler",
        ] {
            assert_eq!(marketed(name), None, "{name}");
        }
    }
}
