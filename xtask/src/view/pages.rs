//! The page checks of `cargo xtask view`: each page opened in the browser,
//! counted, clicked and photographed.

use super::cdp::Browser;
use super::{trace, Failures};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where the checks run: the `trace` binary, the browser, a scratch directory.
pub struct Ctx<'a> {
    pub bin: &'a Path,
    pub chromium: &'a Path,
    pub dir: &'a Path,
}

/// Events clicked per page at most (spread over the run).
const CLICKS: usize = 12;

impl Ctx<'_> {
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    pub fn trace(&self, args: &[&str]) -> Result<String, String> {
        trace(self.bin, args)
    }

    pub fn browser(&self, width: u32, height: u32) -> Result<Browser, String> {
        let profile = self.path(&format!("profile-{width}x{height}"));
        let _ = std::fs::remove_dir_all(&profile);
        Browser::start(self.chromium, &profile, width, height)
    }

    /// Records a bundled fixture on one scheduler thread.
    pub fn record_fixture(&self, id: &str, deliveries: bool) -> Result<PathBuf, String> {
        let fixture = trace_fixtures::discover(&trace_fixtures::root())
            .into_iter()
            .find(|f| f.id == id)
            .ok_or_else(|| format!("no fixture {id}"))?;
        let log = self.path(&format!("{}.trace", id.replace('/', "_")));
        let mut args: Vec<String> = vec!["record".into()];
        args.extend(fixture.files.iter().map(|f| f.display().to_string()));
        args.extend([
            "-o".into(),
            log.display().to_string(),
            "--schedulers".into(),
            "1".into(),
        ]);
        if deliveries {
            args.push("--deliveries".into());
        }
        self.trace(&args.iter().map(String::as_str).collect::<Vec<_>>())?;
        Ok(log)
    }
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap_or("")
}

/// Opens a page and waits until its script is done: the time it took and
/// what went wrong on the way.
pub fn open(b: &mut Browser, html: &Path) -> Result<(Duration, Vec<String>), String> {
    b.problems();
    let url = format!(
        "file://{}",
        html.canonicalize().map_err(|e| e.to_string())?.display()
    );
    let t0 = Instant::now();
    b.call("Page.navigate", json!({ "url": url }))?;
    b.wait_event("Page.loadEventFired", Duration::from_secs(120))?;
    let ready = b.eval("typeof traceView === 'object' && traceView.ready === true")?;
    let took = t0.elapsed();
    let mut problems = b.problems();
    if ready != Value::Bool(true) {
        problems.push("the page's script did not finish".into());
    }
    Ok((took, problems))
}

/// The events of a log, as `trace dump --json` lists them.
fn dump(ctx: &Ctx<'_>, log: &Path) -> Result<Vec<Value>, String> {
    ctx.trace(&["dump", s(log), "--json"])?
        .lines()
        .map(|l| serde_json::from_str(l).map_err(|e| e.to_string()))
        .collect()
}

fn event_name(v: &Value) -> String {
    format!("{}#{}", v["name"].as_str().unwrap_or("?"), v["index"])
}

/// The causal past of `event`, as `trace replay --until` replays it.
pub fn replay_past(ctx: &Ctx<'_>, log: &Path, event: &str) -> Result<BTreeSet<String>, String> {
    Ok(ctx
        .trace(&["replay", s(log), "--until", event, "--json"])?
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "step")
        .map(|v| event_name(&v))
        .collect())
}

fn strings(v: Value) -> BTreeSet<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// A lane per process, an arrow per message received, clicks that
/// highlight exactly the causal past, a diagram that is not blank.
pub fn fixture_page(
    ctx: &Ctx<'_>,
    b: &mut Browser,
    log: &Path,
    what: &str,
    fails: &mut Failures,
) -> Result<(), String> {
    let before = fails.count();
    let html = log.with_extension("html");
    ctx.trace(&["view", s(log), "-o", s(&html)])?;
    let (took, problems) = open(b, &html)?;
    fails.all(what, problems);
    let events = dump(ctx, log)?;
    let procs: BTreeSet<String> = events
        .iter()
        .filter_map(|e| e["name"].as_str().map(String::from))
        .collect();
    let lanes = b.eval("traceView.lanes(0).filter(l => l.kind === 'process').map(l => l.name)")?;
    let lanes = strings(lanes);
    fails.check(lanes == procs, || {
        format!("{what}: lanes {lanes:?}, processes {procs:?}")
    });
    let sent: BTreeSet<&str> = events
        .iter()
        .filter(|e| e["kind"] == "send")
        .filter_map(|e| e["msg"].as_str())
        .collect();
    let received = events
        .iter()
        .filter(|e| e["kind"] == "receive" && e["msg"].as_str().is_some_and(|m| sent.contains(m)))
        .count() as u64;
    let arrows = b
        .eval("traceView.arrows(0).byLink.message || 0")?
        .as_u64()
        .unwrap_or(0);
    fails.check(arrows == received, || {
        format!("{what}: {arrows} message arrows, {received} messages received")
    });
    let step = events.len().div_ceil(CLICKS).max(1);
    let mut clicked = 0;
    for e in events.iter().step_by(step) {
        let name = event_name(e);
        click_and_compare(ctx, b, log, &name, what, fails)?;
        clicked += 1;
    }
    let blank = not_blank(b)?;
    fails.check(blank.is_none(), || {
        format!("{what}: {}", blank.unwrap_or_default())
    });
    lanes_and_search(b, &procs, what, fails)?;
    fails.all(what, b.problems());
    println!(
        "{} {what}: {} events, {} lanes, {arrows} message arrows, {clicked} clicks, loaded in {:.2}s",
        fails.tag(before),
        events.len(),
        lanes.len(),
        took.as_secs_f64()
    );
    Ok(())
}

/// Hides the last process's lane with its header's button, collapses and
/// expands the first, and finds events by kind and by process.
fn lanes_and_search(
    b: &mut Browser,
    procs: &BTreeSet<String>,
    what: &str,
    fails: &mut Failures,
) -> Result<(), String> {
    let (Some(first), Some(last)) = (procs.first(), procs.last()) else {
        return Ok(());
    };
    let hidden = |b: &mut Browser, name: &str| -> Result<Value, String> {
        b.eval(&format!(
            "traceView.lanes(0).find(l => l.name === {}).hidden",
            json!(name)
        ))
    };
    for (lane, act) in [(last, "hide"), (first, "collapse"), (first, "expand")] {
        let at = b.eval(&format!(
            "traceView.laneButton(0, {}, {})",
            json!(lane),
            json!(act)
        ))?;
        match (at["x"].as_f64(), at["y"].as_f64()) {
            (Some(x), Some(y)) => b.click(x, y)?,
            _ => fails.check(false, || format!("{what}: no {act} button on lane {lane}")),
        }
    }
    let h = hidden(b, last)?;
    fails.check(h == Value::Bool(true), || {
        format!("{what}: the hide button left {last} shown")
    });
    b.eval(&format!(
        "traceView.lane(0, traceView.lanes(0).findIndex(l => l.name === {}), 'show')",
        json!(last)
    ))?;
    let found = b.eval("traceView.search('spawn')")?.as_u64().unwrap_or(0);
    fails.check(found > 0, || {
        format!("{what}: a search for 'spawn' found nothing")
    });
    let found = b
        .eval(&format!("traceView.search({})", json!(format!("{first} "))))?
        .as_u64()
        .unwrap_or(0);
    fails.check(found > 0, || {
        format!("{what}: a search for process {first} found nothing")
    });
    b.eval("traceView.search('')")?;
    Ok(())
}

/// Clicks the event named `name` where the page draws it; the page must
/// select it and highlight exactly what `trace replay --until` replays.
fn click_and_compare(
    ctx: &Ctx<'_>,
    b: &mut Browser,
    log: &Path,
    name: &str,
    what: &str,
    fails: &mut Failures,
) -> Result<(), String> {
    let at = b.eval(&format!("traceView.locate(0, {})", json!(name)))?;
    let (Some(x), Some(y)) = (at["x"].as_f64(), at["y"].as_f64()) else {
        fails.check(false, || format!("{what}: the page has no event {name}"));
        return Ok(());
    };
    b.click(x, y)?;
    let selected = b.eval("traceView.selected(0)")?;
    fails.check(selected == json!(name), || {
        format!("{what}: clicked {name} at ({x}, {y}), selected {selected}")
    });
    let past = strings(b.eval("traceView.past(0)")?);
    let want = replay_past(ctx, log, name)?;
    fails.check(past == want, || {
        format!(
            "{what}: causal past of {name}: the page has {:?} too many, {:?} missing",
            past.difference(&want).collect::<Vec<_>>(),
            want.difference(&past).collect::<Vec<_>>()
        )
    });
    Ok(())
}

/// A screenshot of the first diagram, as PNG bytes.
fn diagram_shot(b: &mut Browser) -> Result<(Vec<u8>, String), String> {
    let r = b.eval("(() => { const r = document.querySelector('.pane-body').getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; })()")?;
    let clip = json!({ "x": r["x"], "y": r["y"], "width": r["w"], "height": r["h"], "scale": 1 });
    let shot = b.call(
        "Page.captureScreenshot",
        json!({ "format": "png", "clip": clip }),
    )?;
    let b64 = shot["data"].as_str().ok_or("no screenshot")?.to_string();
    Ok((base64(&b64)?, b64))
}

/// Why a screenshot of the diagram is blank, if it is: decoded by the
/// browser itself, it must have ink (not only background) in more than 1%
/// of its pixels and several colours.
fn not_blank(b: &mut Browser) -> Result<Option<String>, String> {
    let (_, b64) = diagram_shot(b)?;
    let stats = b.eval(&format!(
        "(async () => {{ const img = new Image(); img.src = 'data:image/png;base64,{b64}'; await img.decode();
           const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
           const x = c.getContext('2d'); x.drawImage(img, 0, 0);
           const d = x.getImageData(0, 0, c.width, c.height).data; let ink = 0; const colours = new Set();
           for (let i = 0; i < d.length; i += 4) {{ if (d[i] < 240 || d[i+1] < 240 || d[i+2] < 240) ink++; if (colours.size < 64) colours.add(d[i] << 16 | d[i+1] << 8 | d[i+2]); }}
           return {{ pixels: c.width * c.height, ink, colours: colours.size }}; }})()"
    ))?;
    let pixels = stats["pixels"].as_f64().unwrap_or(0.0);
    let ink = stats["ink"].as_f64().unwrap_or(0.0);
    let colours = stats["colours"].as_u64().unwrap_or(0);
    Ok((pixels == 0.0 || ink / pixels < 0.01 || colours < 5)
        .then(|| format!("the diagram's screenshot looks blank: {stats}")))
}

/// Standard base64, as DevTools sends screenshots.
pub fn base64(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' | b'\n' | b'\r' => continue,
            _ => return Err(format!("not base64: {:?}", c as char)),
        };
        acc = acc << 6 | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Ok(out)
}

/// `check --html` and `diff --html`: pages with their findings listed and
/// marked; a click on a finding selects its event.
pub fn findings_pages(ctx: &Ctx<'_>, b: &mut Browser, fails: &mut Failures) -> Result<(), String> {
    let log = ctx.path("conc_links_monitors.trace");
    let html = ctx.path("check.html");
    ctx.trace(&[
        "check",
        s(&log),
        "--builtin",
        "no_abnormal_exit",
        "--html",
        s(&html),
    ])?;
    finding_page(b, &html, "check --html", 1, fails)?;
    // Two runs of the purchase example that decide differently.
    let program = trace_fixtures::root().join("papers/purchase.erl");
    let mut runs: Vec<(PathBuf, String)> = Vec::new();
    for seed in 1..60 {
        let log = ctx.path(&format!("purchase-{seed}.trace"));
        let out = ctx.trace(&[
            "record",
            s(&program),
            "-o",
            s(&log),
            "--schedulers",
            "1",
            "--chaos",
            "--seed",
            &seed.to_string(),
        ])?;
        if runs.iter().all(|(_, o)| *o != out) {
            runs.push((log, out));
        }
        if runs.len() == 2 {
            break;
        }
    }
    if runs.len() < 2 {
        fails.check(false, || {
            "diff --html: no two runs of papers/purchase differ".into()
        });
        return Ok(());
    }
    let html = ctx.path("diff.html");
    ctx.trace(&["diff", s(&runs[0].0), s(&runs[1].0), "--html", s(&html)])?;
    finding_page(b, &html, "diff --html", 2, fails)
}

fn finding_page(
    b: &mut Browser,
    html: &Path,
    what: &str,
    runs: u64,
    fails: &mut Failures,
) -> Result<(), String> {
    let before = fails.count();
    let (_, problems) = open(b, html)?;
    fails.all(what, problems);
    let n = b.eval("traceView.runs")?.as_u64().unwrap_or(0);
    fails.check(n == runs, || format!("{what}: {n} diagrams, want {runs}"));
    let findings = b.eval("traceView.findings()")?.as_u64().unwrap_or(0);
    fails.check(findings > 0, || format!("{what}: no findings listed"));
    let li = b.eval("(() => { const r = document.querySelector('#finding-list li').getBoundingClientRect(); return {x: r.x + 10, y: r.y + 8}; })()")?;
    b.click(
        li["x"].as_f64().unwrap_or(0.0),
        li["y"].as_f64().unwrap_or(0.0),
    )?;
    let selected = b.eval("traceView.selected(0) || traceView.selected(1)")?;
    fails.check(selected.is_string(), || {
        format!("{what}: a click on the first finding selected nothing")
    });
    fails.all(what, b.problems());
    println!(
        "{} {what}: {findings} findings, {n} diagrams, the first finding selects {selected}",
        fails.tag(before)
    );
    Ok(())
}

/// A page of more than 100,000 events: how long it takes to load, and to
/// draw a screenful anywhere in it.
pub fn large_page(
    ctx: &Ctx<'_>,
    b: &mut Browser,
    limit_s: f64,
    fails: &mut Failures,
) -> Result<(), String> {
    let before = fails.count();
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/view_ring.erl");
    let log = ctx.path("ring.trace");
    ctx.trace(&["record", s(&program), "-o", s(&log), "--schedulers", "1"])?;
    let html = ctx.path("ring.html");
    let t0 = Instant::now();
    ctx.trace(&["view", s(&log), "-o", s(&html)])?;
    let write = t0.elapsed().as_secs_f64();
    let size = std::fs::metadata(&html).map(|m| m.len()).unwrap_or(0);
    let (took, problems) = open(b, &html)?;
    fails.all("large page", problems);
    let events = b.eval("traceView.events(0)")?.as_u64().unwrap_or(0);
    fails.check(events >= 100_000, || {
        format!("large page: {events} events, want 100000 or more")
    });
    let load = took.as_secs_f64();
    fails.check(load <= limit_s, || {
        format!("large page: loaded in {load:.2}s, more than {limit_s}s")
    });
    let height = b.eval("traceView.height(0)")?.as_f64().unwrap_or(0.0);
    let (mut worst, mut sum, n) = (0f64, 0f64, 40);
    for k in 0..n {
        let top = height * k as f64 / n as f64;
        let ms = b
            .eval(&format!("traceView.scrollTo(0, {top}).ms"))?
            .as_f64()
            .unwrap_or(f64::MAX);
        worst = worst.max(ms);
        sum += ms;
    }
    let html = ctx.path("ring-window.html");
    ctx.trace(&["view", s(&log), "-o", s(&html), "--window", "50000"])?;
    open(b, &html)?;
    let banner = b.eval("document.getElementById('banner').hidden ? '' : document.getElementById('banner').textContent")?;
    let said = banner.as_str().unwrap_or("");
    fails.check(
        said.contains("window of 50000 events") && said.contains("--from"),
        || format!("large page: a window of 50000 events says {banner}"),
    );
    open(b, &ctx.path("ring.html"))?;
    let at = b.eval("traceView.locate(0, 'P.20#2000')")?;
    b.click(
        at["x"].as_f64().unwrap_or(0.0),
        at["y"].as_f64().unwrap_or(0.0),
    )?;
    let click_ms = b
        .eval("traceView.selectMs(0)")?
        .as_f64()
        .unwrap_or(f64::NAN);
    let past = b.eval("traceView.past(0).length")?.as_u64().unwrap_or(0);
    let want = replay_past(ctx, &log, "P.20#2000")?.len() as u64;
    fails.check(past == want, || {
        format!("large page: causal past of P.20#2000 has {past} events, replay has {want}")
    });
    println!(
        "{} large page: {events} events, {:.1} MB, written in {write:.2}s, loaded in {load:.2}s; \
         a screenful drawn in {:.1} ms on average, {worst:.1} ms at worst ({n} places); \
         a click on an event with {past} events in its causal past: \
         past, future and details in {click_ms:.0} ms",
        fails.tag(before),
        size as f64 / 1e6,
        sum / n as f64,
    );
    Ok(())
}

/// The README's picture: a small run's diagram with one event selected.
pub fn readme_picture(ctx: &Ctx<'_>, out: &Path) -> Result<(), String> {
    let mut b = ctx.browser(980, 560)?;
    b.call(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 980, "height": 540, "deviceScaleFactor": 1, "mobile": false }),
    )?;
    let log = ctx.path("conc_links_monitors.trace");
    let html = ctx.path("readme.html");
    ctx.trace(&["view", s(&log), "-o", s(&html)])?;
    open(&mut b, &html)?;
    // An event halfway: its past in blue, its future in orange.
    let at = b.eval("traceView.locate(0, 'P.1#4')")?;
    b.click(
        at["x"].as_f64().unwrap_or(0.0),
        at["y"].as_f64().unwrap_or(0.0),
    )?;
    b.eval("traceView.scrollTo(0, 0); document.getElementById('tip').hidden = true")?;
    let shot = b.call("Page.captureScreenshot", json!({ "format": "png" }))?;
    let png = base64(shot["data"].as_str().ok_or("no screenshot")?)?;
    std::fs::write(out, &png).map_err(|e| format!("{}: {e}", out.display()))?;
    println!("wrote {} ({} bytes)", out.display(), png.len());
    Ok(())
}
