use super::*;

#[test]
fn the_most_common_wins_and_the_first_breaks_ties() {
    assert_eq!(most_common(["a", "b", "b"].into_iter()), Some("b"));
    assert_eq!(most_common(["a", "b"].into_iter()), Some("a"));
    assert_eq!(
        most_common(["b", "a", "a", "b", "c"].into_iter()),
        Some("b")
    );
    assert_eq!(most_common(std::iter::empty::<&str>()), None);
}

fn entry(name: &str, sold_as: Option<&str>, label: Option<&str>) -> Entry {
    Entry {
        id: String::new(),
        class: "standard/direct/random".into(),
        device_key: Some("sandisk-sn64g-64gb".into()),
        device_name: name.into(),
        kind: "microSD".into(),
        transport: None,
        capacity_gb: Some(64),
        started_at: String::new(),
        label: label.map(str::to_string),
        headline: None,
        sold_as: sold_as.map(str::to_string),
        board: None,
        filesystem: None,
        price_usd: None,
        flag: None,
        synthetic: false,
        figures: BTreeMap::new(),
        submitter: None,
        neighbourhood: None,
        waits: false,
        system: None,
    }
}

#[test]
fn one_result_cannot_say_what_a_device_is_sold_as() {
    let extreme = Some("SanDisk Extreme 64GB A2");
    let one = [
        entry("SanDisk SN64G 64 GB", extreme, None),
        entry("SanDisk SN64G 64 GB", None, None),
    ];
    let row = &aggregate(&one)[0];
    assert_eq!(row.sold_as, None);
    // Searchable all the same.
    assert!(row.names.contains("sandisk-extreme-64gb-a2"));
    // Two households' word is not enough either (issue 59: one dual-stack client is two).
    let mut three = vec![
        entry("SanDisk SN64G 64 GB", Some("Fake Pro"), None),
        entry("SanDisk SN64G 64 GB", extreme, None),
        entry(
            "SanDisk SN64G 64 GB",
            Some("sandisk  EXTREME 64gb a2"),
            None,
        ),
    ];
    assert_eq!(aggregate(&three)[0].sold_as, None);
    three.push(entry("SanDisk SN64G 64 GB", extreme, None));
    assert_eq!(aggregate(&three)[0].sold_as.as_deref(), extreme);
}

/// Issue 59's second attack pass: three households of one neighbourhood (three /24s of one
/// /22) set what a card is sold as. They count as one where its identity moves.
#[test]
fn households_of_one_neighbourhood_name_nothing() {
    let junk = Some("Totally Fake 64GB");
    let from = |household: &str, place: &str| {
        let mut e = entry("SanDisk SN64G 64 GB", junk, None);
        e.submitter = Some(format!("4.{household}"));
        e.neighbourhood = Some(place.into());
        e
    };
    let mut block = vec![from("a", "x"), from("b", "x"), from("c", "x")];
    let row = &aggregate(&block)[0];
    assert_eq!((row.sold_as.as_deref(), row.submitters), (None, 3));
    block.push(from("d", "y"));
    assert_eq!(aggregate(&block)[0].sold_as, None);
    block.push(from("e", "z"));
    assert_eq!(aggregate(&block)[0].sold_as.as_deref(), junk);
}

/// Issue 59's third attack pass: twenty /24s of one /16 sent a device's figures at 0.3 times
/// what three other networks' owners measured, and its median followed them. A network weighs
/// once, however many households it holds.
#[test]
fn many_households_of_one_network_weigh_as_one() {
    let at = |household: &str, place: &str, mb: f64| {
        let mut e = sent(
            &format!("4.{household}"),
            "Samsung 990 PRO 1 TB",
            "NVMe",
            mb,
        );
        e.neighbourhood = Some(place.into());
        e
    };
    let mut results: Vec<Entry> = (0..3)
        .map(|i| at(&format!("honest{i}"), &format!("net{i}"), 1314.0))
        .collect();
    results.extend((0..20).map(|i| at(&format!("sybil{i}"), "one /16", 394.0)));
    let row = &aggregate(&results)[0];
    let figure = &row.stats["seq1m_q8_read"];
    assert_eq!((figure.median, figure.n), (1314.0, 4), "{figure:?}");
    assert_eq!(row.submitters, 23);
}

/// A result of `who` naming the device `name`, of kind `kind`, with SEQ1M Q8T1 read `mb`.
fn sent(who: &str, name: &str, kind: &str, mb: f64) -> Entry {
    let mut e = entry(name, None, None);
    e.submitter = Some(who.into());
    e.kind = kind.into();
    e.figures.insert("seq1m_q8_read".into(), mb);
    e
}

/// A card's classes are what most of its submitters find, each weighing once however
/// many results it sends, a claim it misses left out; results of other profiles find none.
#[test]
fn a_cards_classes_are_what_most_submitters_find() {
    let card = |who: &str, headline: &str| {
        let mut e = sent(who, "Card", "microSD", 80.0);
        e.class = "sdcard/direct/random".into();
        e.headline = Some(headline.into());
        e
    };
    let mut group = vec![
        card("a", "C10 U3 V30 A1"),
        card("b", "C10 U1 V10, misses claimed U3 V30 A1"),
        card("c", "C10 U3 V30 A1, misses claimed A2"),
    ];
    for _ in 0..10 {
        group.push(card("loud", "C10 U3 V90 A2"));
    }
    assert_eq!(
        aggregate(&group)[0].classes.as_deref(),
        Some("C10 U3 V30 A1")
    );
    let standard = [sent("a", "Card", "microSD", 80.0)];
    assert_eq!(aggregate(&standard)[0].classes, None);
}

#[test]
fn each_submitter_weighs_once_however_much_it_sends() {
    // Four submitters agree on about 90 MB/s; a fifth sends 3,000 results of 9,000.
    let mut group: Vec<Entry> = (0..4)
        .map(|n| sent(&format!("s{n}"), "Good Card", "microSD", 88.0 + n as f64))
        .collect();
    for n in 0..3000 {
        group.push(sent("loud", "Good Card", "microSD", 9000.0 + n as f64));
    }
    let row = &aggregate(&group)[0];
    let read = &row.stats["seq1m_q8_read"];
    assert_eq!((row.submitters, read.n), (5, 5));
    assert_eq!(read.median, 90.0);
    assert_eq!(row.results, 3004);
    // The same figures sent again under new ids by one submitter are one result.
    let again: Vec<Entry> = (0..50)
        .map(|_| sent("loud", "Good Card", "microSD", 9000.0))
        .collect();
    let row = &aggregate(&[group[..4].to_vec(), again].concat())[0];
    assert_eq!((row.results, row.submitters), (5, 5));
    // A result the site cannot tell the sender of is a submitter of its own.
    let mut unknown = entry("Good Card", None, None);
    unknown.figures.insert("seq1m_q8_read".into(), 1.0);
    let row = &aggregate(&[unknown.clone(), unknown])[0];
    assert_eq!((row.results, row.submitters), (2, 2));
}

#[test]
fn a_device_is_renamed_by_several_submitters_and_a_margin_only() {
    let honest = |n: usize| -> Vec<Entry> {
        (0..n)
            .map(|i| sent(&format!("h{i}"), "Samsung 980 PRO", "NVMe", 6000.0))
            .collect()
    };
    let fake = |who: &str| sent(who, "CHEAP FAKE", "USB flash", 6000.0);
    // One submitter, however often it sends, changes nothing.
    let mut group = honest(4);
    group.extend((0..20).map(|_| fake("attacker")));
    let row = &aggregate(&group)[0];
    assert_eq!(
        (row.name.as_str(), row.kind.as_str()),
        ("Samsung 980 PRO", "NVMe")
    );
    // Nor does a first submitter outvoted by fewer than AGREEING others.
    let mut group = honest(1);
    group.extend((0..AGREEING - 1).map(|n| fake(&format!("a{n}"))));
    assert_eq!(aggregate(&group)[0].name, "Samsung 980 PRO");
    // AGREEING submitters, MARGIN more than name it otherwise, do.
    let mut group = honest(1);
    group.extend((0..AGREEING).map(|n| fake(&format!("a{n}"))));
    assert_eq!(aggregate(&group)[0].name, "CHEAP FAKE");
    // Short of the margin, they do not.
    let mut group = honest(2);
    group.extend((0..AGREEING).map(|n| fake(&format!("a{n}"))));
    assert_eq!(aggregate(&group)[0].name, "Samsung 980 PRO");
    // A submitter's vote is what most of its own results say.
    let mut group = vec![sent("one", "Name A", "SD", 1.0)];
    group.extend((0..3).map(|_| sent("two", "Name B", "SD", 2.0)));
    group.push(sent("two", "Name A", "SD", 3.0));
    assert_eq!(
        settle(
            &votes(&by_submitter(&group.iter().collect::<Vec<_>>()), |e| e
                .device_name
                .clone()),
            1
        ),
        Some(("Name A".to_string(), 1))
    );
}

#[test]
fn names_hold_every_name_and_label_once_and_stay_bounded() {
    let mut group = vec![
        entry("SanDisk SN64G 64 GB", None, Some("Pi 4 boot card")),
        entry(
            "SanDisk SN64G 64 GB",
            Some("SanDisk Extreme"),
            Some("pi 4 boot card"),
        ),
    ];
    let first = names("sandisk-sn64g-64gb", &group.iter().collect::<Vec<_>>());
    assert_eq!(
        first,
        "sandisk-sn64g-64gb sandisk-sn64g-64-gb sandisk-extreme pi-4-boot-card"
    );
    for n in 0..2000 {
        group.push(entry(
            "SanDisk SN64G 64 GB",
            None,
            Some(&format!("label {n}")),
        ));
    }
    // The model's own names come first, whatever the labels.
    group.push(entry("Other Name", None, None));
    let bounded = names("sandisk-sn64g-64gb", &group.iter().collect::<Vec<_>>());
    assert!(bounded.len() <= NAMES_BYTES);
    assert!(bounded.contains("other-name") && bounded.contains("pi-4-boot-card"));
}

#[test]
fn quartiles() {
    let s = spread(vec![4.0, 1.0, 3.0, 2.0, 5.0]).unwrap();
    assert_eq!((s.median, s.p25, s.p75, s.n), (3.0, 2.0, 4.0, 5));
    let s = spread(vec![1.0, 2.0]).unwrap();
    assert_eq!(s.median, 1.5);
    assert!(spread(vec![f64::NAN]).is_none());
}

/// Issue 59's fifth attack pass: one client sent a device's figures at 0.3 times an honest
/// household's over IPv4, then over IPv6 with a fresh key, and the median fell from 686 to
/// 307 MB/s, its own figure, while the device said 2 submitters. A device's figures are those
/// of the address family with the most places (of as many, IPv4's).
#[test]
fn one_client_over_two_families_weighs_once() {
    let at = |who: &str, place: &str, mb: f64| {
        let mut e = sent(who, "Samsung 990 PRO 1 TB", "NVMe", mb);
        e.neighbourhood = Some(place.into());
        e
    };
    let mut results = vec![
        at("4.honest", "4.net", 1069.0),
        at("4.attacker", "4.home", 321.0),
    ];
    let median = |r: &[Entry]| aggregate(r)[0].stats["seq1m_q8_read"].median;
    assert_eq!(median(&results), 695.0);
    results.push(at("6.attacker", "6.home", 321.0));
    assert_eq!(
        median(&results),
        695.0,
        "one client, two families, weighed twice"
    );
    results.push(at("6.attacker-again", "6.other48", 321.0));
    assert_eq!(
        median(&results),
        695.0,
        "two /32s of IPv6 tie IPv4's two places"
    );
    assert_eq!(aggregate(&results)[0].submitters, 2);
    // A device only IPv6 households measured has their figures.
    let six = [at("6.a", "6.x", 100.0), at("6.b", "6.y", 120.0)];
    assert_eq!(median(&six), 110.0);
}

/// The fourteenth attack pass: a device measured once at 480 MB/s, then at 4.9 times that
/// from another neighbourhood, ranked with a median of 1,460. Two neighbourhoods that
/// disagree so are one corroborating one, and rank it on neither's word; a third that agrees
/// with the first ranks it at theirs; two within twice each other's figures rank it.
#[test]
fn two_neighbourhoods_that_disagree_rank_on_neither_s_word() {
    let at = |who: &str, mb: f64| {
        let mut e = sent(&format!("4.{who}"), "Samsung 990 PRO 1 TB", "NVMe", mb);
        e.neighbourhood = Some(format!("place {who}"));
        e.figures.insert("rnd4k_q1_read".into(), mb / 20.0);
        e
    };
    let mut results = vec![at("first", 480.0), at("ramp", 480.0 * 4.9)];
    let row = aggregate(&results).remove(0);
    assert_eq!(row.neighbourhoods, 1, "{:?}", row.stats);
    results.push(at("third", 500.0));
    let row = aggregate(&results).remove(0);
    assert_eq!(row.neighbourhoods, 2);
    assert_eq!(row.stats["seq1m_q8_read"].median, 500.0);
    let honest = [at("a", 480.0), at("b", 950.0)];
    assert_eq!(aggregate(&honest)[0].neighbourhoods, 2);
    let apart = [at("a", 480.0), at("b", 1000.0)];
    assert_eq!(aggregate(&apart)[0].neighbourhoods, 1);
    // A figure or two of a place's far off (a card's random writes) is no disagreement.
    let mut noisy = [at("a", 480.0), at("b", 500.0)];
    noisy[1].figures.insert("rnd4k_q1_read".into(), 1.0);
    assert_eq!(aggregate(&noisy)[0].neighbourhoods, 2);
}
