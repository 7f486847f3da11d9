//! `--time-limit` and `--max-events`: a run (and each attempt of a search)
//! that would go on for ever ends cleanly at a limit, its log finalised and
//! marked as cut (exit status 124). `--halt`: the run ends when the entry
//! does, as `erl -eval 'm:main(), halt().'` does.

use clap::Args as ClapArgs;
use std::time::Duration;
use trace_runtime::RunOptions;

#[derive(ClapArgs, Clone, Debug, Default)]
pub struct Limits {
    /// End the run after this long (30s, 500ms, 2m, 1h; a bare number is seconds); exit status 124
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub time_limit: Option<Duration>,
    /// End the run once its processes have made about this many events; exit status 124
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_events: Option<u64>,
    /// End the run as soon as the entry returns or crashes, as halt() after it would; other processes are left where they are
    #[arg(long)]
    pub halt: bool,
}

impl Limits {
    pub fn apply(&self, o: &mut RunOptions) {
        o.time_limit = self.time_limit;
        o.max_events = self.max_events;
        o.halt = self.halt;
    }
}

/// Parses a duration: a number with `ms`, `s`, `m` or `h`, or seconds alone.
pub fn duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let bad = || format!("{s:?}: expected a duration such as 30s, 500ms, 2m or 1h");
    let n: f64 = num.parse().map_err(|_| bad())?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(bad()),
    };
    if !(secs > 0.0 && secs < 1e9) {
        return Err(format!(
            "{s:?}: expected a duration above zero and below 30 years"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::duration;
    use std::time::Duration;

    #[test]
    fn durations_parse_as_users_write_them() {
        assert_eq!(duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(duration("0s").is_err());
        assert!(duration("ten").is_err());
        assert!(duration("5 days").is_err());
    }
}
