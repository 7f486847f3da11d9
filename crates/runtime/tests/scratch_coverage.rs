#[test]
fn coverage() {
    let dir = std::env::temp_dir().join("trace_cov");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("e.erl");
    std::fs::write(&f, "-module(e).\n-export([main/0]).\nmain() -> ok.\n").unwrap();
    let l = trace_runtime::load(&[f], &Default::default()).unwrap();
    let mods = std::env::var("COV_MODS")
        .unwrap_or("lists maps string proplists math io_lib io erlang".into());
    for m in mods.split(' ') {
        let mut missing = vec![];
        for line in include_str!("../data/otp_exports.txt").lines() {
            let v: Vec<&str> = line.split(' ').collect();
            if v[0] != m {
                continue;
            }
            let (ma, fa) = (
                trace_term::Atom::intern(v[0]),
                trace_term::Atom::intern(v[1]),
            );
            let a: u32 = v[2].parse().unwrap();
            if l.program.exported(ma, fa, a).is_none()
                && trace_runtime::bif::registry()
                    .lookup_atoms(ma, fa, a as usize)
                    .is_none()
            {
                missing.push(format!("{}/{}", v[1], a));
            }
        }
        println!("== {m} missing {}: {}", missing.len(), missing.join(" "));
    }
}
