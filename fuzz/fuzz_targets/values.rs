//! What people type after a flag, from any bytes: sizes, durations, test names (one or a
//! comma list, as `--test` takes them), profiles, SD classes, languages, labels, what a device
//! is sold as and its price. Each is a value or one line saying why not; a plain count of
//! bytes is that many bytes.
#![no_main]

use iomark_core::suite::select;
use iomark_profiles::{sdcard, Profile, TestSpec};
use iomark_result::result::{check_label, check_sold_as};
use iomark_result::units::{parse_duration, parse_price, parse_size, MAX_DURATION};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    // A refusal is one line, whatever was typed.
    let one_line = |why: String| assert!(!why.contains(['\n', '\r']), "not one line: {why:?}");
    match parse_size(text) {
        Ok(size) => {
            if let Ok(count) = text.trim().parse::<u64>() {
                assert_eq!(size, count, "a count of bytes is that many bytes");
            }
        }
        Err(why) => one_line(why),
    }
    match parse_duration(text) {
        Ok(duration) => assert!(duration <= MAX_DURATION),
        Err(why) => one_line(why),
    }
    match parse_price(text) {
        Ok(price) => assert!(price.is_finite() && price > 0.0 && price < 1e6),
        Err(why) => one_line(why),
    }
    match TestSpec::parse(text) {
        Ok(Some(tests)) => assert!(!tests.is_empty()),
        Ok(None) => {}
        Err(why) => one_line(why),
    }
    let names: Vec<String> = text.split(',').map(str::to_string).collect();
    for profile in Profile::CHOICES {
        if let Err(why) = select::select(profile, Vec::new(), &names) {
            one_line(why.to_string());
        }
    }
    let _ = Profile::from_name(text);
    let _ = sdcard::known(text);
    let _ = iomark_core::langs::lang(text);
    if let Err(why) = check_label(text) {
        one_line(why);
    }
    if let Err(why) = check_sold_as(text) {
        one_line(why);
    }
});
