//! io_lib:format against OTP 25 (tests/data/format.txt).

mod common;

use trace_term::format::format_term;

#[test]
fn format_matches_erlang() {
    let data = common::data("format.txt");
    let mut lines = data.lines().enumerate();
    let mut failures = Vec::new();
    let mut checked = 0;
    while let Some((i, comment)) = lines.next() {
        assert!(
            comment.starts_with("# "),
            "format.txt:{}: expected a comment",
            i + 1
        );
        let field = |l: Option<(usize, &str)>, key: &str| -> String {
            let (n, l) = l.unwrap_or_else(|| panic!("format.txt ends inside a case"));
            let (k, v) = l.split_once(' ').unwrap_or((l, ""));
            assert_eq!(k, key, "format.txt:{}", n + 1);
            v.to_string()
        };
        let fmt = common::term(&field(lines.next(), "fmt"));
        let args = common::term(&field(lines.next(), "args")).to_vec().unwrap();
        let (_, result) = lines.next().expect("a result line");
        let want = result.strip_prefix("out ").map(common::unescape);
        let got = format_term(&fmt, &args);
        checked += 1;
        let same = match (&got, &want) {
            (Ok(g), Some(w)) => g == w,
            (Err(_), None) => true,
            _ => false,
        };
        if !same {
            failures.push(format!(
                "format.txt:{}: {}\n  want {:?}\n  got  {:?}",
                i + 1,
                &comment[2..],
                want,
                got
            ));
        }
    }
    assert!(checked > 200, "only {checked} cases");
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
