//! Names that read as a visible device's: twins in other scripts, with words added, or
//! with the maker left out.

use super::*;

/// The thirteenth attack pass: twins of a visible `Samsung SSD 980 PRO 1TB` ranked with the
/// maker in Thai, Arabic or Hindi, an O drawn as `()`, and with words added.
#[test]
fn twins_in_other_scripts_or_with_words_added_are_look_alikes() {
    let slug = iomark_result::result::identity::slug;
    let real = slug("Samsung SSD 980 PRO 1TB");
    for name in [
        "ซัมซุง SSD 980 PRO 1TB",
        "سامسونج SSD 980 PRO 1TB",
        "सैमसंग SSD 980 PRO 1TB",
        "SaMsUnG SsD 980 PR() 1TB",
    ] {
        let key = slug(name);
        assert!(one_product(&key, &real), "{name}: {key}");
    }
    for name in [
        "Samsung SSD 980 PRO 1,0 TB",
        "Samsung SSD 980 PRO 1 To",
        "Samsung SSD 980 PRO 1TB Rev.B",
        "Samsung SSD 980 PRO 1TB (2021)",
        "samsung.com/980-pro-1tb",
        "Samsung Galaxy SSD 980 PRO 1TB",
    ] {
        let key = slug(name);
        assert!(adds_to(&key, &real), "{name}: {key}");
    }
    // The fifteenth: a letter added to a model number is another product, not a twin.
    let key = slug("WD Black SN850X 1000GB");
    let sn850 = slug("WD Black SN850 1000GB");
    assert!(!adds_to(&key, &sn850));
    assert!(!one_product(&key, &sn850));
    assert!(!same_device(&sn850, &key));
    // The sixteenth: siblings whose names add a word of the line.
    for (mine, theirs) in [
        ("KIOXIA EXCERIA G2 1TB", "KIOXIA EXCERIA 1TB"),
        ("Corsair MP600 CORE 1TB", "Corsair MP600 1TB"),
        ("WD Elements SE 1TB", "WD Elements 1TB"),
    ] {
        assert!(!adds_to(&slug(mine), &slug(theirs)), "{mine}");
    }
    // The fourteenth: the maker left out.
    for (mine, theirs) in [
        ("P3 Plus 2TB", "Crucial P3 Plus 2TB"),
        ("T7 1TB", "Samsung T7 1TB"),
        ("SSD 980 PRO 1TB", "Samsung SSD 980 PRO 1TB"),
    ] {
        let (mine, theirs) = (Product::of(&slug(mine)), Product::of(&slug(theirs)));
        assert!(leaves_out_maker(&mine, &theirs));
        assert!(!leaves_out_maker(&theirs, &mine));
    }
    for (mine, theirs) in [
        ("P3 Plus 1TB", "Crucial P3 Plus 2TB"),
        ("P3 2TB", "Crucial P3 Plus 2TB"),
        ("Kingston P3 Plus 2TB", "Crucial P3 Plus 2TB"),
    ] {
        let (mine, theirs) = (Product::of(&slug(mine)), Product::of(&slug(theirs)));
        assert!(!leaves_out_maker(&mine, &theirs));
    }
    // Another product of the line, a name with a word less, a nameless one.
    for name in [
        "Samsung SSD 980 PRO with Heatsink 1TB",
        "Samsung SSD 980 1TB",
        "Samsung SSD 990 PRO 1TB",
        "SSD 980 PRO 1TB",
    ] {
        let key = slug(name);
        assert!(!adds_to(&key, &real), "{name}: {key}");
    }
}

/// The sixteenth attack pass ranked four twins of a ranked `Crucial MX500 2TB` beside it: its
/// digits spaced apart, its maker in katakana, `()` for the zeros after a figure, and its
/// capacity glued to its model number (that one is the device itself now).
#[test]
fn spaced_figures_a_transcribed_maker_and_a_glued_capacity_read_as_the_device() {
    let key = |model: &str| {
        let mut doc = iomark_result::result::sample::ssd_doc();
        let device = doc.target.device.as_mut().unwrap();
        (device.vendor, device.model) = (None, Some(model.to_string()));
        device.size_bytes = Some(2_000_398_934_016);
        doc.identity().device_key.unwrap()
    };
    let real = key("Crucial MX500 2TB");
    assert_eq!(real, "crucial-mx500-2000gb");
    assert_eq!(key("Crucial MX5002TB"), real);
    for name in [
        "Crucial MX 5 0 0 2TB",
        "クルーシャル MX500 2TB",
        "Crucial MX5()() 2TB",
    ] {
        let twin = key(name);
        let mine = Product::of(&twin);
        assert!(
            super::looks_alike(&twin, (&skeleton(&twin), &mine), &real),
            "{name}: {twin}"
        );
    }
    // Other products still are others.
    for name in ["Crucial MX300 2TB", "Crucial BX500 2TB", "Crucial P3 2TB"] {
        let other = key(name);
        let mine = Product::of(&other);
        assert!(
            !super::looks_alike(&other, (&skeleton(&other), &mine), &real),
            "{name}"
        );
    }
}

/// The sixteenth and seventeenth attack passes ranked `Crucial MX500 Extreme`, `… Turbo` and
/// `… EVO` beside the real MX500: words of other makers' lines, or of none. A maker's own
/// line's word still makes another product.
#[test]
fn another_maker_s_line_word_makes_no_product_of_this_one() {
    let slug = iomark_result::result::identity::slug;
    let real = slug("Crucial MX500 1TB");
    for name in [
        "Crucial MX500 Extreme 1TB",
        "Crucial MX500 Turbo 1TB",
        "Crucial MX500 EVO 1TB",
    ] {
        assert!(adds_to(&slug(name), &real), "{name}");
    }
    for (mine, theirs) in [
        ("Crucial P3 Plus 1TB", "Crucial P3 1TB"),
        ("Samsung SSD 970 EVO Plus 1TB", "Samsung SSD 970 EVO 1TB"),
        ("SanDisk Extreme PRO 1TB", "SanDisk Extreme 1TB"),
        ("Samsung T7 Shield 1TB", "Samsung T7 1TB"),
        ("WD My Passport Ultra 1TB", "WD My Passport 1TB"),
        ("KIOXIA EXCERIA PLUS G3 1TB", "KIOXIA EXCERIA PLUS 1TB"),
        ("Corsair MP600 CORE XT 1TB", "Corsair MP600 CORE 1TB"),
        ("Teamgroup MP33 Pro 1TB", "Teamgroup MP33 1TB"),
    ] {
        assert!(!adds_to(&slug(mine), &slug(theirs)), "{mine}");
    }
}
